// Screens cell by cell, in one form for every viewer, so they can be compared: the daemon's model
// (GET /api/sessions/{id}/screen), the browser's xterm.js buffer, and `limpet attach` in a real
// tmux pane (what `capture-pane -e` prints, read back by a headless xterm.js of the pane's size).
//
// The form is what a person sees: each row as runs of text with their look (colours and
// attributes); an empty cell reads as a space, and a blank cell keeps only what shows on a blank
// (its background, and the foreground where inverse, underline, strike-through or overline paint
// it); the cursor's column is clamped to the last one (a pending wrap shows there).
import { execFileSync } from 'node:child_process';
import xtermHeadless from '@xterm/headless';

/**
 * The visible screen of an xterm.js Terminal (the browser's, or a headless one). Self-contained:
 * its source is sent to the page as it is.
 */
export function xtermCells(term) {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const mode = (m) => (m === 0 ? 'default' : m === 0x1000000 ? 'p16' : m === 0x2000000 ? 'p256' : 'rgb');
  const colour = (m, v) => (m === 0 ? 'default' : m === 0x3000000 ? `rgb:${v.toString(16).padStart(6, '0')}` : `${mode(m)}:${v}`);
  const styles = ['underline', 'underline', 'double-underline', 'curly-underline', 'dotted-underline', 'dashed-underline'];
  const lines = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    const cells = [];
    for (let x = 0; x < term.cols; x++) {
      line.getCell(x, cell);
      const attrs = [];
      if (cell.isBold()) attrs.push('bold');
      if (cell.isDim()) attrs.push('dim');
      if (cell.isItalic()) attrs.push('italic');
      if (cell.isUnderline()) attrs.push(styles[Math.max(1, Math.min(5, cell.extended?.underlineStyle ?? 1))]);
      if (cell.isBlink()) attrs.push('blink');
      if (cell.isInverse()) attrs.push('inverse');
      if (cell.isInvisible()) attrs.push('invisible');
      if (cell.isStrikethrough()) attrs.push('strikethrough');
      if (cell.isOverline()) attrs.push('overline');
      cells.push({
        chars: cell.getChars(), width: cell.getWidth(),
        fg: colour(cell.getFgColorMode(), cell.getFgColor()), bg: colour(cell.getBgColorMode(), cell.getBgColor()), attrs,
      });
    }
    lines.push(cells);
  }
  return { cols: term.cols, rows: term.rows, cursorX: buffer.cursorX, cursorY: buffer.cursorY, lines };
}

/** A screen as a person sees it: runs of text with their look per row, and the cursor. */
export function seen(screen) {
  const rows = screen.lines.map((cells) => {
    const runs = [];
    for (const c of cells) {
      if (c.width === 0) continue; // the right half of a wide character
      const blank = c.chars === '' || c.chars === ' ';
      const paintsFg = c.attrs.some((a) => a === 'inverse' || a.endsWith('underline') || a === 'strikethrough' || a === 'overline');
      const attrs = blank ? c.attrs.filter((a) => a === 'inverse' || a.endsWith('underline') || a === 'strikethrough' || a === 'overline') : c.attrs;
      const look = [blank && !paintsFg ? 'default' : c.fg, c.bg, ...attrs].join(' ');
      const text = blank ? ' ' : c.chars;
      const last = runs[runs.length - 1];
      if (last && last.look === look) last.text += text;
      else runs.push({ look, text });
    }
    // Trailing default blanks are no content (tmux does not print them).
    while (runs.length > 0 && runs[runs.length - 1].look === 'default default' && runs[runs.length - 1].text.trim() === '') runs.pop();
    const last = runs[runs.length - 1];
    if (last && last.look === 'default default') last.text = last.text.replace(/ +$/, '');
    return runs.map((r) => (r.look === 'default default' ? r.text : `⟨${r.look}⟩${r.text}⟨/⟩`)).join('');
  });
  return { size: `${screen.cols}x${screen.rows}`, cursor: `${Math.min(screen.cursorX, screen.cols - 1)},${screen.cursorY}`, rows };
}

/** The daemon's model of a session. */
export async function daemonScreen(daemon, sessionId) {
  const s = await daemon.api(`/api/sessions/${sessionId}/screen`);
  return {
    cols: s.cols, rows: s.rows, cursorX: s.cursor_x, cursorY: s.cursor_y, alternate: s.alternate_screen, title: s.title,
    lines: s.lines.map((line) => line.map((c) => ({ chars: c.chars, width: c.width, fg: c.fg, bg: c.bg, attrs: c.attrs }))),
  };
}

/** A tab's xterm.js buffer in the page. */
export async function browserScreen(page, tabId) {
  return page.evaluate(`(${xtermCells.toString()})(window.limpet.terminal(${JSON.stringify(tabId)}).term)`);
}

/** What a tmux pane shows (`capture-pane -e`), read back by a headless xterm.js of its size, and its cursor. */
export async function tmuxScreen(tmux, target) {
  const [cols, rows, cursorX, cursorY] = tmux.display(target, '#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}').split(' ').map(Number);
  const captured = tmux.run('capture-pane', '-p', '-e', '-N', '-t', target);
  const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  // capture-pane ends each row with a newline: rows that fill the width must not wrap into the next.
  const text = captured.replace(/\n$/, '').split('\n').map((row, y) => `\x1b[${y + 1};1H${row}`).join('');
  await new Promise((resolve) => term.write(text.replace(/\x1b\[0?m$/, ''), resolve));
  const screen = xtermCells(term);
  term.dispose();
  return { ...screen, cursorX, cursorY };
}

/** The first rows where two screens differ, for an assertion message; null when they are the same. */
export function difference(a, b, names = ['a', 'b']) {
  const sa = seen(a);
  const sb = seen(b);
  const out = [];
  if (sa.size !== sb.size) out.push(`size: ${names[0]} ${sa.size}, ${names[1]} ${sb.size}`);
  if (sa.cursor !== sb.cursor) out.push(`cursor: ${names[0]} ${sa.cursor}, ${names[1]} ${sb.cursor}`);
  for (let y = 0; y < Math.max(sa.rows.length, sb.rows.length) && out.length < 8; y++) {
    if (sa.rows[y] !== sb.rows[y]) out.push(`row ${y}:\n  ${names[0]}: ${sa.rows[y]}\n  ${names[1]}: ${sb.rows[y]}`);
  }
  return out.length === 0 ? null : out.join('\n');
}

/** A private tmux server (`-L`), so nothing here touches anyone else's. */
export class Tmux {
  constructor() {
    this.socket = `limpet-fidelity-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  }

  run(...args) {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  display(target, format) {
    return this.run('display-message', '-p', '-t', target, format).trim();
  }

  /** The pane's modes and title, as tmux keeps them. */
  modes(target) {
    return this.display(target, ['alternate_on', 'cursor_flag', 'insert_flag', 'keypad_cursor_flag', 'keypad_flag', 'mouse_any_flag',
      'mouse_button_flag', 'mouse_standard_flag', 'mouse_sgr_flag', 'mouse_utf8_flag', 'mouse_all_flag', 'origin_flag', 'wrap_flag',
      'scroll_region_upper', 'scroll_region_lower', 'pane_tabs', 'pane_title'].map((f) => `${f}=#{${f}}`).join(' '));
  }

  kill() {
    try {
      this.run('kill-server');
    } catch {
      // already gone
    }
  }
}
