/**
 * An SNS HTTP(S) delivery's JSON body, as AWS documents it:
 * https://docs.aws.amazon.com/sns/latest/dg/http-notification-json.html
 * (and -subscription-confirmation-json, -unsubscribe-confirmation-json).
 */
export interface SnsEnvelope {
  Type: 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
  MessageId: string;
  TopicArn: string;
  Subject?: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
  /** SubscriptionConfirmation and UnsubscribeConfirmation only. */
  Token?: string;
  SubscribeURL?: string;
}

const TYPES = new Set(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']);

/**
 * The fields each type signs, in the order AWS signs them
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html):
 * each name then its value, each on a line of its own. A Notification's
 * Subject is signed only when it has one.
 */
const SIGNED_FIELDS: Record<SnsEnvelope['Type'], readonly (keyof SnsEnvelope)[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

export function stringToSign(envelope: SnsEnvelope): string {
  let text = '';
  for (const field of SIGNED_FIELDS[envelope.Type]) {
    const value = envelope[field];
    if (value === undefined) continue;
    text += `${field}\n${value}\n`;
  }
  return text;
}

/** The body read as an SNS envelope, or why it is not one. */
export function readEnvelope(body: unknown): { envelope: SnsEnvelope } | { refused: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { refused: 'the body is not an SNS message (a JSON object)' };
  const b = body as Record<string, unknown>;
  for (const field of ['Type', 'MessageId', 'TopicArn', 'Message', 'Timestamp', 'SignatureVersion', 'Signature', 'SigningCertURL'] as const) {
    if (typeof b[field] !== 'string' || b[field] === '') return { refused: `the SNS message has no ${field}` };
  }
  if (!TYPES.has(b.Type as string)) return { refused: `the SNS message's Type ${JSON.stringify(b.Type)} is none of ${[...TYPES].join(', ')}` };
  if (b.SignatureVersion !== '1' && b.SignatureVersion !== '2') return { refused: `the SNS message's SignatureVersion ${JSON.stringify(b.SignatureVersion)} is neither 1 nor 2` };
  if (b.Subject !== undefined && typeof b.Subject !== 'string') return { refused: 'the SNS message has a Subject that is not a string' };
  if (b.Type !== 'Notification') {
    for (const field of ['Token', 'SubscribeURL'] as const) {
      if (typeof b[field] !== 'string' || b[field] === '') return { refused: `the SNS ${b.Type as string} has no ${field}` };
    }
  }
  return { envelope: b as unknown as SnsEnvelope };
}
