// The daemon's side of the relay handshake, played in tests with the same WebCrypto primitives.
import { E2E, SealedSession, concat, deriveKeys, hmac, pairing } from '../../src/client/relay-crypto';

const ascii = (s: string) => new TextEncoder().encode(s);

export async function daemonAnswer(hello: Uint8Array, secretText: string, tamper = false): Promise<{ answer: Uint8Array; session: SealedSession }> {
  const pair = await pairing(secretText);
  const keys = (await crypto.subtle.generateKey({ name: 'X25519' }, false, ['deriveBits'])) as CryptoKeyPair;
  const pub = new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey));
  const body = concat(Uint8Array.of(E2E.ACCEPT), pub, crypto.getRandomValues(new Uint8Array(32)));
  const mac = await hmac(pair.authKey, ascii('limpet accept'), hello, body);
  if (tamper) mac[0]! ^= 1;
  const peer = await crypto.subtle.importKey('raw', hello.slice(18, 50), { name: 'X25519' }, false, []);
  const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: 'X25519', public: peer }, keys.privateKey, 256));
  const k = await deriveKeys(pair.secret, shared, hello, body);
  return { answer: concat(body, mac), session: await SealedSession.forTest('D', k.clientToDaemon, k.daemonToClient) };
}
