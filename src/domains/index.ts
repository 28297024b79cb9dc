/** Sending domains: adding and verifying them (DNS records, DKIM keys, the verifier), their tracking settings, and which of them a send may come from. */
export { type DkimKeyPair, generateDkimKeyPair } from './dkim-keys.js';
export { type DnsRecord, RETURN_PATH_LABEL } from './dns-records.js';
export { createDnsVerifier } from './dns-verifier.js';
export { default as domainRoutes, DomainBody, DomainPatch } from './domain-routes.js';
export { type DomainChange, type DomainDetail, type DomainSummary, type DomainWithRoute, type RecordHost, createDomainService } from './domain-service.js';
export { createDomainsRepository } from './domains-repository.js';
export { mailHostnameProblem } from './mail-hostname.js';
export { SANDBOX_SENDER_DOMAIN, type SenderDomain, type SenderDomainCheck, checkKeyDomain, checkSenderDomain, sendableDomains } from './sender-domain.js';
