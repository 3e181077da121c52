// Headless Chromium driven through the DevTools protocol, with nothing but Node's standard
// library (Node 20 has no WebSocket global, so a minimal client is below): shared by the
// page drivers of the tests (drive.mjs: the game viewer; live.mjs: the live page).

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';

export const MISSING = "this test needs Debian's chromium (tests/run.sh, the README's test command, installs it)";

// ---- a minimal WebSocket client (RFC 6455: client handshake, masked frames out) ----------

export function wsConnect(url) {
  const u = new URL(url);
  const key = crypto.randomBytes(16).toString('base64');
  const expected = crypto.createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: u.hostname, port: Number(u.port) });
    const ws = { onmessage: () => {}, onclose: () => {}, send: (text) => sock.write(frame(1, Buffer.from(text, 'utf8'))), close: () => sock.end() };
    let open = false;
    let pending = [];
    let pendingLen = 0;
    let need = 1;
    let fragments = [];
    sock.on('error', (e) => (open ? ws.onclose(e) : reject(e)));
    sock.on('close', () => ws.onclose(null));
    sock.on('connect', () => {
      sock.write(
        `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    sock.on('data', (chunk) => {
      pending.push(chunk);
      pendingLen += chunk.length;
      if (pendingLen < need) return;
      let buf = pending.length === 1 ? pending[0] : Buffer.concat(pending);
      pending = [];
      pendingLen = 0;
      if (!open) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) {
          pending = [buf];
          pendingLen = buf.length;
          return;
        }
        const head = buf.subarray(0, end).toString('latin1');
        const accept = /\r\nsec-websocket-accept:\s*(\S+)/i.exec(head);
        if (!/^HTTP\/1\.1 101/.test(head) || !accept || accept[1] !== expected) {
          reject(new Error(`WebSocket handshake refused: ${head.split('\r\n')[0]}`));
          sock.destroy();
          return;
        }
        open = true;
        resolve(ws);
        buf = buf.subarray(end + 4);
      }
      // Whole frames; what is left waits for more bytes.
      for (;;) {
        if (buf.length < 2) break;
        const fin = (buf[0] & 0x80) !== 0;
        const opcode = buf[0] & 0x0f;
        const masked = (buf[1] & 0x80) !== 0;
        let len = buf[1] & 0x7f;
        let at = 2;
        if (len === 126) {
          if (buf.length < 4) break;
          len = buf.readUInt16BE(2);
          at = 4;
        } else if (len === 127) {
          if (buf.length < 10) break;
          len = Number(buf.readBigUInt64BE(2));
          at = 10;
        }
        const maskAt = at;
        if (masked) at += 4;
        if (buf.length < at + len) {
          need = at + len;
          break;
        }
        let payload = buf.subarray(at, at + len);
        if (masked) payload = Buffer.from(payload.map((b, i) => b ^ buf[maskAt + (i & 3)]));
        buf = buf.subarray(at + len);
        need = 1;
        if (opcode === 8) {
          sock.end();
        } else if (opcode === 9) {
          sock.write(frame(10, payload));
        } else if (opcode === 0 || opcode === 1 || opcode === 2) {
          fragments.push(payload);
          if (fin) {
            const text = Buffer.concat(fragments).toString('utf8');
            fragments = [];
            ws.onmessage(text);
          }
        }
      }
      if (buf.length) {
        pending = [buf];
        pendingLen = buf.length;
        need = Math.max(need, buf.length + 1);
      }
    });
  });
}

function frame(opcode, payload) {
  const len = payload.length;
  let header;
  if (len < 126) {
    header = Buffer.alloc(2);
    header[1] = 0x80 | len;
  } else if (len < 65536) {
    header = Buffer.alloc(4);
    header[1] = 0x80 | 126;
    header.writeUInt16BE(len, 2);
  } else {
    header = Buffer.alloc(10);
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  header[0] = 0x80 | opcode;
  const mask = crypto.randomBytes(4);
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = payload[i] ^ mask[i & 3];
  return Buffer.concat([header, mask, body]);
}

// ---- the DevTools protocol ---------------------------------------------------------------

export class Cdp {
  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.waiting = new Map();
    this.listeners = [];
    ws.onmessage = (text) => {
      const msg = JSON.parse(text);
      if (msg.id !== undefined && this.waiting.has(msg.id)) {
        const { resolve, reject, method } = this.waiting.get(msg.id);
        this.waiting.delete(msg.id);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      } else if (msg.method) {
        for (const l of this.listeners) l(msg);
      }
    };
    ws.onclose = (e) => {
      for (const { reject, method } of this.waiting.values()) reject(new Error(`${method}: connection closed ${e || ''}`));
      this.waiting.clear();
    };
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, method });
      this.ws.send(JSON.stringify(msg));
    });
  }
}

// ---- Chromium ----------------------------------------------------------------------------

export function startChromium(userDir) {
  const exe = process.env.CHROMIUM || 'chromium';
  const flags = [
    '--headless=new',
    '--remote-debugging-port=0',
    `--user-data-dir=${userDir}`,
    // CI containers run as root and lack the namespaces the sandbox needs; the only page
    // loaded is the one under test.
    '--no-sandbox',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-gpu',
    '--disable-crash-reporter',
    '--disable-breakpad',
    '--disable-dev-shm-usage',
    '--disable-extensions',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--hide-scrollbars',
    '--mute-audio',
    'about:blank',
  ];
  const child = spawn(exe, flags, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  const url = new Promise((resolve, reject) => {
    child.on('error', (e) => reject(e.code === 'ENOENT' ? Object.assign(new Error(MISSING), { missing: true }) : e));
    child.stderr.on('data', (d) => {
      stderr += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code, signal) => reject(new Error(`chromium exited (${code ?? signal}) before DevTools was ready:\n${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

export function stopChromium(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      resolve();
    }, 3000);
    child.once('exit', () => {
      clearTimeout(t);
      // Its helper processes share its process group.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      resolve();
    });
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      resolve();
    }
  });
}


// ---- a page of its own --------------------------------------------------------------------

// Opens a blank page in its own session and records what goes wrong on it: uncaught
// exceptions, console errors and dialogs (each dismissed, so none blocks the page).
// `viewport` ({ width, height }) sets its size, or leaves Chromium's default when absent.
// Returns `s(method, params)` (a command on that page), `evaluate(expression)` (its value,
// an exception thrown as an Error naming the expression's first `shown` characters),
// `problems` (the three lists, filled as they happen) and the page's `targetId`.
export async function openPage(cdp, viewport, shown = Infinity) {
  const problems = { exceptions: [], console_errors: [], dialogs: [] };
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  const s = (method, params) => cdp.send(method, params, sessionId);
  cdp.listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === 'Runtime.exceptionThrown') {
      const d = m.params.exceptionDetails;
      problems.exceptions.push((d.exception && d.exception.description) || d.text);
    } else if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') {
      problems.console_errors.push(m.params.args.map((a) => a.value ?? a.description).join(' '));
    } else if (m.method === 'Page.javascriptDialogOpening') {
      problems.dialogs.push(`${m.params.type}: ${m.params.message}`);
      s('Page.handleJavaScriptDialog', { accept: false }).catch(() => {});
    }
  });
  await s('Runtime.enable');
  await s('Page.enable');
  if (viewport) {
    await s('Emulation.setDeviceMetricsOverride', { width: viewport.width, height: viewport.height, deviceScaleFactor: 1, mobile: false });
  }
  const evaluate = async (expression) => {
    const r = await s('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`${expression.slice(0, shown)}: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  };
  return { s, evaluate, problems, targetId };
}
