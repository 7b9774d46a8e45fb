import { Terminal } from '@xterm/xterm';

const root = document.getElementById('app')!;
const term = new Terminal();
term.open(root);
term.write('limpet\r\n');
