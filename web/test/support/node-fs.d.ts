// The one Node API the web suite uses (reading the vector file shared with the Java suite); the
// project keeps @types/node out of the browser code's type world.
declare module 'node:fs' {
  export function readFileSync(path: string | URL, encoding: 'utf8'): string;
}
