/** The leaf vocabulary of the inbound parsers: what a recipient's outcome is, and which SMTP command a refusal answered. */
/** What one recipient's outcome in an inbound message is. */
export type InboundKind = 'delivered' | 'hard_bounce' | 'soft_bounce' | 'complaint' | 'autoreply' | 'none';

/** The SMTP command a remote server's error answered, when the report says. */
export type SmtpCommand = 'CONN' | 'HELO' | 'MAIL' | 'RCPT' | 'DATA';
