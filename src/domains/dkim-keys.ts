import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

/** The key size DESIGN.md fixes; 2048 is what every large receiver accepts and recommends. */
export const DKIM_KEY_BITS = 2048;

export interface DkimKeyPair {
  selector: string;
  privateKeyPem: string;
  /** Base64 DER SubjectPublicKeyInfo: the `p=` tag of the DNS record. */
  publicKeyBase64: string;
}

/** A fresh key pair and a per-domain selector, so keys can be rotated one domain at a time. */
export async function generateDkimKeyPair(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
    modulusLength: DKIM_KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    selector: `mr${randomBytes(5).toString('hex')}`,
    privateKeyPem: privateKey,
    publicKeyBase64: publicKey.toString('base64'),
  };
}
