import { X509Certificate, createVerify } from 'node:crypto';
import { httpsGet, type FetchOptions } from './https-fetch.js';
import { stringToSign, type SnsEnvelope } from './sns-envelope.js';
import { untrustedUrlReason } from './trusted-hosts.js';

/** Signing certificates kept, by URL: SNS signs with a handful at a time, rotated rarely. */
const CACHED_CERTIFICATES = 32;

export interface SignatureCheckOptions extends FetchOptions {
  trustedHosts: readonly string[];
}

/**
 * Checks an SNS message's signature against the certificate at its
 * SigningCertURL: fetched only over https from a trusted host (checked before
 * any connection is made), at most once per URL while it stays in the cache,
 * and used only while valid. SignatureVersion 1 is RSA with SHA-1, 2 with SHA-256.
 */
export function createSignatureChecker(options: SignatureCheckOptions) {
  const certificates = new Map<string, Promise<X509Certificate>>();

  function certificateAt(url: string): Promise<X509Certificate> {
    const cached = certificates.get(url);
    if (cached) {
      // Most recently used last: the first is the one to drop.
      certificates.delete(url);
      certificates.set(url, cached);
      return cached;
    }
    const fetched = httpsGet(url, options).then((pem) => new X509Certificate(pem));
    // A failed fetch is not kept: the next message may find the host answering.
    fetched.catch(() => certificates.delete(url));
    certificates.set(url, fetched);
    if (certificates.size > CACHED_CERTIFICATES) certificates.delete(certificates.keys().next().value!);
    return fetched;
  }

  return {
    /** Null when the signature verifies; else why not. */
    async refusal(envelope: SnsEnvelope, now = new Date()): Promise<string | null> {
      const untrusted = untrustedUrlReason(envelope.SigningCertURL, options.trustedHosts);
      if (untrusted) return `its SigningCertURL is refused: ${untrusted}`;
      // SNS's certificates are .pem files: anything else on a trusted host is no reason to fetch.
      if (!new URL(envelope.SigningCertURL).pathname.endsWith('.pem')) return 'its SigningCertURL is refused: it names no .pem certificate';
      let certificate: X509Certificate;
      try {
        certificate = await certificateAt(envelope.SigningCertURL);
      } catch (error) {
        return `its signing certificate could not be fetched: ${(error as Error).message}`;
      }
      if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) return 'its signing certificate is not valid now';
      const verifier = createVerify(envelope.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
      verifier.update(stringToSign(envelope), 'utf8');
      return verifier.verify(certificate.publicKey, envelope.Signature, 'base64') ? null : 'its signature does not verify';
    },
  };
}

export type SignatureChecker = ReturnType<typeof createSignatureChecker>;
