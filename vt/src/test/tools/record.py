#!/usr/bin/env python3
"""Records the raw output of a program run under a pseudo-terminal of a fixed size.

usage: record.py OUT COLS ROWS SCRIPT -- CMD [ARGS...]

SCRIPT is a sequence of steps separated by '|':  'w:<seconds>' waits and drains output,
anything else is sent as keystrokes after Python unicode-escape decoding (e.g. 'ihello\\x1b').
The program runs with TERM=xterm-256color, LANG=C.UTF-8 in a fresh environment.
"""
import os, pty, sys, time, select, struct, fcntl, termios, signal

def main():
    out, cols, rows, script = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    cmd = sys.argv[sys.argv.index('--') + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        env = {'TERM': 'xterm-256color', 'LANG': 'C.UTF-8', 'LC_ALL': 'C.UTF-8', 'HOME': os.environ.get('REC_HOME', '/tmp'),
               'PATH': '/usr/local/bin:/usr/bin:/bin', 'COLUMNS': str(cols), 'LINES': str(rows),
               'PS1': '\\[\\e[1;32m\\]rec\\[\\e[0m\\]:\\[\\e[1;34m\\]\\w\\[\\e[0m\\]$ '}
        os.execvpe(cmd[0], cmd, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    data = bytearray()

    def drain(seconds):
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0:
                return True
            r, _, _ = select.select([fd], [], [], left)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                data.extend(chunk)

    alive = drain(0.8)
    for step in script.split('|'):
        if not alive:
            break
        if step.startswith('w:'):
            alive = drain(float(step[2:]))
        else:
            os.write(fd, step.encode('utf-8').decode('unicode_escape').encode('latin-1'))
            alive = drain(0.25)
    if alive:
        alive = drain(1.0)
    try:
        os.kill(pid, signal.SIGHUP)
    except ProcessLookupError:
        pass
    try:
        drain(0.3)
    except Exception:
        pass
    os.waitpid(pid, 0)
    with open(out, 'wb') as f:
        f.write(data)
    print(f'{out}: {len(data)} bytes')

main()
