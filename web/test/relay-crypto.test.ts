import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ClientHandshake, E2E, E2eError, SealedSession, deriveKeys, fromHex, gateProof, hkdf, hmac, pairing, toHex, concat,
} from '../src/client/relay-crypto';
import { daemonAnswer } from './support/relay-daemon';

// The same file the Java suite reads (RelayCryptoVectorsTest): both implementations must agree with
// it, and so with each other.
const vectors = JSON.parse(readFileSync(new URL('../../protocol/src/test/resources/relay-crypto-vectors.json', import.meta.url), 'utf8'));
const ascii = (s: string) => new TextEncoder().encode(s);
const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

describe('relay crypto: known answers shared with Java', () => {
  it('HKDF-SHA256 matches RFC 5869', async () => {
    expect(vectors.hkdf_sha256.length).toBeGreaterThanOrEqual(2);
    for (const v of vectors.hkdf_sha256) {
      expect(toHex(await hkdf(fromHex(v.salt), fromHex(v.ikm), fromHex(v.info), v.length)), v.source).toBe(v.okm);
    }
  });

  it('AES-256-GCM matches the spec vector', async () => {
    for (const v of vectors.aes_256_gcm) {
      const key = await crypto.subtle.importKey('raw', fromHex(v.key), 'AES-GCM', false, ['encrypt']);
      const out = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: fromHex(v.nonce), additionalData: fromHex(v.aad) }, key, fromHex(v.plaintext));
      expect(toHex(new Uint8Array(out))).toBe(v.ciphertext_and_tag);
    }
  });

  it('the pairing id and auth key, the handshake keys and the accept MAC match', async () => {
    const p = vectors.pairing[0];
    const pair = await pairing(p.secret);
    expect(toHex(pair.pairingId)).toBe(p.pairing_id);
    expect(toHex(pair.authKey)).toBe(p.auth_key);
    expect(toHex(pair.relayKey)).toBe(p.relay_key);
    const g = vectors.gate[0];
    expect(toHex(await gateProof(await pairing(g.secret), g.host_id, fromHex(g.challenge)))).toBe(g.proof);
    const k = vectors.handshake_keys[0];
    const keys = await deriveKeys(pair.secret, fromHex(k.x25519_shared), fromHex(k.hello), fromHex(k.accept_body));
    expect(toHex(keys.clientToDaemon)).toBe(k.client_to_daemon);
    expect(toHex(keys.daemonToClient)).toBe(k.daemon_to_client);
    expect(toHex(await hmac(pair.authKey, ascii('limpet accept'), fromHex(k.hello), fromHex(k.accept_body)))).toBe(k.accept_mac);
  });

  it('sealed messages match and open on the other side, in order only', async () => {
    const c2d = fromHex(vectors.sealed[0].key);
    const d2c = fromHex(vectors.sealed[2].key);
    const client = await SealedSession.forTest('C', c2d, d2c);
    const daemon = await SealedSession.forTest('D', c2d, d2c);
    for (const v of vectors.sealed) {
      const [from, to] = v.direction === 'C' ? [client, daemon] : [daemon, client];
      const sealed = await from.seal(v.type, fromHex(v.plaintext));
      expect(toHex(sealed)).toBe(v.sealed);
      expect(toHex((await to.open(sealed)).plaintext)).toBe(v.plaintext);
    }
    const replay = fromHex(vectors.sealed[2].sealed);
    await expect(client.open(replay)).rejects.toBeInstanceOf(E2eError);
  });
});

describe('relay crypto: the handshake against a daemon played with the same primitives', () => {
  it('opens a channel both sides can use; the hello names the pairing and is authenticated', async () => {
    const secret = vectors.pairing[0].secret;
    const pair = await pairing(secret);
    const hs = await ClientHandshake.start(pair, random);
    expect(hs.hello.length).toBe(114);
    expect(toHex(hs.hello.slice(2, 18))).toBe(vectors.pairing[0].pairing_id);
    expect(toHex(hs.hello.slice(82))).toBe(toHex(await hmac(pair.authKey, hs.hello.slice(0, 82))));
    const daemon = await daemonAnswer(hs.hello, secret);
    const client = await hs.accept(daemon.answer);
    const out = await daemon.session.open(await client.seal(E2E.TEXT, ascii('{"type":"hello"}')));
    expect(new TextDecoder().decode(out.plaintext)).toBe('{"type":"hello"}');
    const back = await client.open(await daemon.session.seal(E2E.BINARY, Uint8Array.of(1, 2, 3)));
    expect(Array.from(back.plaintext)).toEqual([1, 2, 3]);
  });

  it('an answer not made with the secret, or a refusal, is pairing_invalid', async () => {
    const secret = vectors.pairing[0].secret;
    const hs = await ClientHandshake.start(await pairing(secret), random);
    const forged = await daemonAnswer(hs.hello, secret, true);
    await expect(hs.accept(forged.answer)).rejects.toMatchObject({ code: 'pairing_invalid' });
    const refusal = concat(Uint8Array.of(E2E.REFUSED), ascii('pairing_invalid'));
    await expect(hs.accept(refusal)).rejects.toMatchObject({ code: 'pairing_invalid' });
    await expect(pairing('too-short')).rejects.toMatchObject({ code: 'pairing_invalid' });
  });
});
