'use strict';
// Differential-test oracle: runs @xterm/headless on byte streams and dumps its complete state in
// the canonical text form that dev.limpet.vt.StateDump produces for the Java model.
//
// usage: node oracle.js jobs.json out.txt
// jobs.json: [{ "id": "...", "cols": 80, "rows": 24, "scrollback": 1000,
//              "ops": [["w", "/path/file", offset, length], ["r", cols, rows], ...] }, ...]
// out: per job a line "@@ <id>", the dump (or "error <message>"), then a line "@@end".
const fs = require('fs');
const { Terminal } = require('@xterm/headless');

const PROTOCOLS = { NONE: 0, X10: 1, VT200: 2, DRAG: 3, ANY: 4 };
const ENCODINGS = { DEFAULT: 0, SGR: 1, SGR_PIXELS: 2 };
const STYLES = { block: 1, underline: 2, bar: 3 };

function charsetSig(cs) {
  if (!cs) return 'B';
  return Object.keys(cs).sort().map(k => k + cs[k][0]).join('');
}

function cellSig(line, i) {
  const d = line._data;
  const content = d[i * 3];
  const fg = d[i * 3 + 1] | 0;
  const bg = d[i * 3 + 2] | 0;
  let ext = 0;
  if (bg & 0x10000000) {
    const e = line._extendedAttrs[i];
    ext = e ? (e.ext | 0) : 0;
  }
  let c;
  if (content & 0x200000) {
    c = JSON.stringify(line._combined[i]) + 'w' + (content >>> 22);
  } else {
    c = String(content);
  }
  return c + ':' + fg + ':' + bg + ':' + ext;
}

function dumpLine(line) {
  const parts = [];
  let prev = null;
  let count = 0;
  for (let i = 0; i < line.length; i++) {
    const s = cellSig(line, i);
    if (s === prev) {
      count++;
    } else {
      if (prev !== null) parts.push(count > 1 ? prev + '*' + count : prev);
      prev = s;
      count = 1;
    }
  }
  if (prev !== null) parts.push(count > 1 ? prev + '*' + count : prev);
  return (line.isWrapped ? 'W ' : '- ') + line.length + ' ' + parts.join(',');
}

function dumpBuffer(name, b) {
  const out = [];
  out.push(`${name} x=${b.x} y=${b.y} ybase=${b.ybase} lines=${b.lines.length} max=${b.lines.maxLength}`
    + ` region=${b.scrollTop},${b.scrollBottom} saved=${b.savedX},${Math.max(b.savedY - b.ybase, 0)},${b.savedCurAttrData.fg | 0},`
    + `${b.savedCurAttrData.bg | 0},${charsetSig(b.savedCharset)}`);
  const tabs = Object.keys(b.tabs).filter(k => b.tabs[k]).map(Number).sort((a, c) => a - c);
  out.push(`${name} tabs=${tabs.join(' ')}`);
  for (let i = 0; i < b.lines.length; i++) {
    out.push(`${name}[${i}] ` + dumpLine(b.lines.get(i)));
  }
  return out;
}

function dump(term) {
  const c = term._core;
  const m = c.coreService.decPrivateModes;
  const cs = c._charsetService;
  const ih = c._inputHandler;
  const bs = c._bufferService;
  const pen = ih._curAttrData;
  const out = [];
  out.push(`size=${bs.cols}x${bs.rows} alt=${bs.buffers.active === bs.buffers.alt}`);
  out.push(`title=${JSON.stringify(ih._windowTitle)} icon=${JSON.stringify(ih._iconName)}`);
  out.push(`cursorHidden=${c.coreService.isCursorHidden} style=${STYLES[m.cursorStyle] || 0}`
    + ` blink=${m.cursorBlink === undefined ? -1 : (m.cursorBlink ? 1 : 0)} blinkOption=${!!c.optionsService.rawOptions.cursorBlink}`);
  out.push(`modes insert=${c.coreService.modes.insertMode} appCursor=${m.applicationCursorKeys}`
    + ` appKeypad=${m.applicationKeypad} paste=${m.bracketedPasteMode} origin=${m.origin}`
    + ` reverseWrap=${m.reverseWraparound} focus=${m.sendFocus} sync=${m.synchronizedOutput}`
    + ` wrap=${m.wraparound} mouse=${PROTOCOLS[c.coreMouseService.activeProtocol]}`
    + ` enc=${ENCODINGS[c.coreMouseService.activeEncoding]} convertEol=${!!c.optionsService.rawOptions.convertEol}`);
  out.push(`charset glevel=${cs.glevel} active=${charsetSig(cs.charset)} g=`
    + [0, 1, 2, 3].map(g => charsetSig(cs._charsets[g])).join(' | '));
  const penExt = (pen.bg & 0x10000000) ? (pen.extended.ext | 0) : 0;
  out.push(`pen=${pen.fg | 0}:${pen.bg | 0}:${penExt}`);
  out.push(...dumpBuffer('normal', bs.buffers.normal));
  out.push(...dumpBuffer('alt', bs.buffers.alt));
  return out.join('\n');
}

// An exception inside xterm.js' parser escapes its write queue: fail the current job, go on.
let failCurrent = null;
process.on('uncaughtException', e => {
  if (failCurrent) {
    failCurrent(e);
  } else {
    throw e;
  }
});

function write(term, data) {
  return new Promise((resolve, reject) => {
    failCurrent = reject;
    term.write(data, resolve);
  });
}

async function run(job, files) {
  const term = new Terminal({
    cols: job.cols, rows: job.rows, scrollback: job.scrollback, allowProposedApi: true, logLevel: 'off'
  });
  for (const op of job.ops) {
    if (op[0] === 'w') {
      let buf = files.get(op[1]);
      if (!buf) {
        buf = fs.readFileSync(op[1]);
        files.set(op[1], buf);
      }
      await write(term, buf.subarray(op[2], op[2] + op[3]));
    } else if (op[0] === 'r') {
      term.resize(op[1], op[2]);
    }
  }
  const result = dump(term);
  term.dispose();
  return result;
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const out = fs.openSync(process.argv[3], 'w');
  const files = new Map();
  for (const job of jobs) {
    let text;
    try {
      text = await run(job, files);
    } catch (e) {
      text = 'error ' + JSON.stringify(String(e && e.stack || e));
    }
    fs.writeSync(out, '@@ ' + job.id + '\n' + text + '\n@@end\n');
  }
  fs.closeSync(out);
}

main().catch(e => { console.error(e); process.exit(1); });
