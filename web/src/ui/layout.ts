// The sidebar collapses below NARROW_WIDTH: a toggle in the top bar shows it over the terminal.
// It starts collapsed when the window is narrow and open when it is wide; a person's choice holds
// until the window crosses the breakpoint.

export const NARROW_WIDTH = 800;

export function isNarrow(windowWidth: number): boolean {
  return windowWidth < NARROW_WIDTH;
}

/** Whether the sidebar shows: the person's choice (null: none yet) or, by default, when wide. */
export function sidebarOpen(narrow: boolean, choice: boolean | null): boolean {
  return choice ?? !narrow;
}
