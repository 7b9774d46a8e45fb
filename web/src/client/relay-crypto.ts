// The relay's end-to-end layer in the browser, with WebCrypto only (HKDF-SHA256, HMAC-SHA256,
// X25519, AES-256-GCM): byte for byte the Java implementation in protocol/relay (docs/relay.md,
// "The end-to-end layer"), checked against the same vector file.

const TEXT = 3;
const BINARY = 4;
export const E2E = { HELLO: 1, ACCEPT: 2, TEXT, BINARY, REFUSED: 5, VERSION: 1 } as const;
const CLIENT_TO_DAEMON = 0x43; // 'C'
const DAEMON_TO_CLIENT = 0x44; // 'D'
const HELLO_BYTES = 114;
const ACCEPT_BYTES = 97;
const ascii = (s: string) => new TextEncoder().encode(s);

/** A failure of the end-to-end layer, with the protocol's code (`pairing_invalid`, `e2e_failed`). */
export class E2eError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const buf = (b: Uint8Array): ArrayBuffer => b.slice().buffer as ArrayBuffer;

export async function hkdf(salt: Uint8Array, ikm: Uint8Array, info: Uint8Array, length: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', buf(ikm), 'HKDF', false, ['deriveBits']);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: buf(salt), info: buf(info) }, key, length * 8));
}

export async function hmac(key: Uint8Array, ...parts: Uint8Array[]): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', buf(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, buf(concat(...parts))));
}

async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', buf(data)));
}

/** base64url without padding → bytes. */
export function fromBase64Url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

export function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export function fromHex(s: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
}

/** The pairing secret of a link's fragment, and what HKDF derives from it. */
export interface Pairing {
  secret: Uint8Array;
  pairingId: Uint8Array;
  authKey: Uint8Array;
  /** What the relay's gate checks (the daemon hands it to the relay; it opens no channel). */
  relayKey: Uint8Array;
}

export async function pairing(encodedSecret: string): Promise<Pairing> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(encodedSecret)) throw new E2eError('pairing_invalid', 'a pairing secret is 43 base64url characters');
  const secret = fromBase64Url(encodedSecret);
  const salt = ascii('limpet relay pairing v1');
  return {
    secret,
    pairingId: await hkdf(salt, secret, ascii('limpet pairing id'), 16),
    authKey: await hkdf(salt, secret, ascii('limpet handshake auth'), 32),
    relayKey: await hkdf(salt, secret, ascii('limpet relay gate'), 32),
  };
}

export const GATE = { CHALLENGE: 6, PROOF: 7 } as const;

/** The answer to the relay's gate: pairing id ‖ HMAC(relay key, "limpet relay gate" ‖ host id ‖ challenge). */
export async function gateProof(pair: Pairing, hostId: string, challengeMessage: Uint8Array): Promise<Uint8Array> {
  if (challengeMessage.length !== 33 || challengeMessage[0] !== GATE.CHALLENGE) throw new E2eError('e2e_failed', 'expected the relay\'s challenge');
  const mac = await hmac(pair.relayKey, ascii('limpet relay gate'), ascii(hostId), challengeMessage.subarray(1));
  return concat(Uint8Array.of(GATE.PROOF), pair.pairingId, mac);
}

export interface ChannelKeys {
  clientToDaemon: Uint8Array;
  daemonToClient: Uint8Array;
}

export async function deriveKeys(secret: Uint8Array, shared: Uint8Array, hello: Uint8Array, acceptBody: Uint8Array): Promise<ChannelKeys> {
  const salt = await sha256(concat(hello, acceptBody));
  const ikm = concat(secret, shared);
  return {
    clientToDaemon: await hkdf(salt, ikm, ascii('limpet c2d'), 32),
    daemonToClient: await hkdf(salt, ikm, ascii('limpet d2c'), 32),
  };
}

/** The client's side of the handshake: `hello` out, then `accept` in gives the channel. */
export class ClientHandshake {
  private constructor(private readonly pair: Pairing, private readonly keys: CryptoKeyPair, readonly hello: Uint8Array) {}

  static async start(pair: Pairing, random: (n: number) => Uint8Array): Promise<ClientHandshake> {
    const keys = (await crypto.subtle.generateKey({ name: 'X25519' }, false, ['deriveBits'])) as CryptoKeyPair;
    const pub = new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey));
    const body = concat(Uint8Array.of(E2E.HELLO, E2E.VERSION), pair.pairingId, pub, random(32));
    return new ClientHandshake(pair, keys, concat(body, await hmac(pair.authKey, body)));
  }

  /** Checks the daemon's answer; a refusal or an answer not made with the secret is `pairing_invalid`. */
  async accept(answer: Uint8Array): Promise<SealedSession> {
    if (answer[0] === E2E.REFUSED) {
      const code = new TextDecoder().decode(answer.subarray(1, 65));
      throw new E2eError(/^[a-z_]+$/.test(code) ? code : 'e2e_failed', `the daemon refused the pairing (${code})`);
    }
    if (answer.length !== ACCEPT_BYTES || answer[0] !== E2E.ACCEPT) throw new E2eError('e2e_failed', 'expected the daemon\'s accept');
    const body = answer.subarray(0, ACCEPT_BYTES - 32);
    const mac = answer.subarray(ACCEPT_BYTES - 32);
    if (!sameBytes(mac, await hmac(this.pair.authKey, ascii('limpet accept'), this.hello, body))) {
      throw new E2eError('pairing_invalid', 'the answer was not made with this pairing\'s secret');
    }
    const peer = await crypto.subtle.importKey('raw', buf(answer.subarray(1, 33)), { name: 'X25519' }, false, []);
    const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: 'X25519', public: peer }, this.keys.privateKey, 256));
    if (shared.every((b) => b === 0)) throw new E2eError('e2e_failed', 'the daemon\'s key gave the all-zero secret');
    const keys = await deriveKeys(this.pair.secret, shared, this.hello, body);
    return SealedSession.create(keys.clientToDaemon, CLIENT_TO_DAEMON, keys.daemonToClient, DAEMON_TO_CLIENT);
  }
}

function nonce(direction: number, counter: number): Uint8Array {
  const b = new Uint8Array(12);
  const v = new DataView(b.buffer);
  v.setInt32(0, direction);
  v.setBigInt64(4, BigInt(counter));
  return b;
}

function aad(type: number, direction: number, counter: number): Uint8Array {
  const b = new Uint8Array(10);
  const v = new DataView(b.buffer);
  b[0] = type;
  b[1] = direction;
  v.setBigInt64(2, BigInt(counter));
  return b;
}

/**
 * One end of an open channel: AES-256-GCM, a key and a message counter per direction; the
 * counter is the nonce and is never sent, so anything but the next message fails to open.
 * Counters are taken when `seal`/`open` is called, so call order is wire order even though
 * WebCrypto answers asynchronously.
 */
export class SealedSession {
  private sent = 0;
  private received = 0;
  private broken = false;

  private constructor(private readonly sendKey: CryptoKey, private readonly sendDirection: number,
    private readonly receiveKey: CryptoKey, private readonly receiveDirection: number) {}

  static async create(sendKey: Uint8Array, sendDirection: number, receiveKey: Uint8Array, receiveDirection: number): Promise<SealedSession> {
    const imp = (k: Uint8Array) => crypto.subtle.importKey('raw', buf(k), 'AES-GCM', false, ['encrypt', 'decrypt']);
    return new SealedSession(await imp(sendKey), sendDirection, await imp(receiveKey), receiveDirection);
  }

  /** For the known-answer tests: a session from raw keys, as the client (`C`) or the daemon (`D`). */
  static async forTest(side: 'C' | 'D', c2d: Uint8Array, d2c: Uint8Array): Promise<SealedSession> {
    return side === 'C' ? SealedSession.create(c2d, CLIENT_TO_DAEMON, d2c, DAEMON_TO_CLIENT)
      : SealedSession.create(d2c, DAEMON_TO_CLIENT, c2d, CLIENT_TO_DAEMON);
  }

  async seal(type: number, plaintext: Uint8Array): Promise<Uint8Array> {
    const n = this.sent++;
    const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: buf(nonce(this.sendDirection, n)), additionalData: buf(aad(type, this.sendDirection, n)), tagLength: 128 },
      this.sendKey, buf(plaintext));
    return concat(Uint8Array.of(type), new Uint8Array(ct));
  }

  async open(message: Uint8Array): Promise<{ type: number; plaintext: Uint8Array }> {
    if (this.broken) throw new E2eError('e2e_failed', 'the channel failed an earlier message');
    const type = message[0];
    const n = this.received++;
    if (message.length < 17 || (type !== TEXT && type !== BINARY)) {
      this.broken = true;
      throw new E2eError('e2e_failed', 'not a sealed message');
    }
    try {
      const pt = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: buf(nonce(this.receiveDirection, n)), additionalData: buf(aad(type, this.receiveDirection, n)), tagLength: 128 },
        this.receiveKey, buf(message.subarray(1)));
      return { type, plaintext: new Uint8Array(pt) };
    } catch {
      this.broken = true;
      throw new E2eError('e2e_failed', `message ${n} does not authenticate (tampered, replayed or out of order)`);
    }
  }
}

export const HANDSHAKE_SIZES = { HELLO_BYTES, ACCEPT_BYTES };
