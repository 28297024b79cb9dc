/**
 * SES's event JSON as AWS documents it (the examples of "Examples of event data that Amazon SES
 * publishes to Amazon SNS" and "Amazon SNS notification examples for Amazon SES"), about the given
 * message: `eventType` is a configuration set's event publishing, `notificationType` an identity's
 * feedback notifications.
 */
export type SesShape = 'eventType' | 'notificationType';

export interface AboutMessage {
  /** SES's MessageId (`mail.messageId`). */
  sesMessageId: string;
  /** The Message-ID header as sent, quoted in `mail.headers`; SES's own id is then in commonHeaders. */
  messageIdHeader?: string;
  destination: string[];
  shape?: SesShape;
}

function mail({ sesMessageId, messageIdHeader, destination }: AboutMessage) {
  const headers = [
    { name: 'From', value: 'Mailroom <hello@sandbox.mailroom.test>' },
    { name: 'To', value: destination.join(', ') },
    { name: 'Subject', value: 'Hello' },
    ...(messageIdHeader ? [{ name: 'Message-ID', value: messageIdHeader }] : []),
    { name: 'MIME-Version', value: '1.0' },
    { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
  ];
  return {
    timestamp: new Date(Date.now() - 60_000).toISOString(),
    source: 'Mailroom <hello@sandbox.mailroom.test>',
    sourceArn: 'arn:aws:ses:us-east-1:123456789012:identity/sandbox.mailroom.test',
    sourceIp: '192.0.2.0',
    callerIdentity: 'mailroom',
    sendingAccountId: '123456789012',
    messageId: sesMessageId,
    destination,
    headersTruncated: false,
    headers,
    commonHeaders: { from: ['Mailroom <hello@sandbox.mailroom.test>'], to: destination, messageId: sesMessageId, subject: 'Hello' },
    tags: { 'ses:configuration-set': ['mailroom'], 'ses:source-ip': ['192.0.2.0'], 'ses:from-domain': ['sandbox.mailroom.test'], 'ses:caller-identity': ['mailroom'] },
  };
}

function typed(about: AboutMessage, type: string) {
  return (about.shape ?? 'eventType') === 'eventType' ? { eventType: type } : { notificationType: type };
}

const at = () => new Date().toISOString();

export function deliveryEvent(about: AboutMessage, recipients: string[]) {
  return {
    ...typed(about, 'Delivery'),
    mail: mail(about),
    delivery: { timestamp: at(), processingTimeMillis: 546, recipients, smtpResponse: '250 ok:  Message 64111812 accepted', reportingMTA: 'a8-70.smtp-out.amazonses.com', remoteMtaIp: '127.0.2.0' },
  };
}

export function bounceEvent(about: AboutMessage, recipients: { emailAddress: string; diagnosticCode?: string; status?: string }[], bounceType = 'Permanent', bounceSubType = 'General') {
  return {
    ...typed(about, 'Bounce'),
    bounce: {
      feedbackId: '0100017b1f52c3e7-8a25a5b7-e5b5-4d9c-9b52-1f0a9e2d5b1c-000000',
      bounceType,
      bounceSubType,
      bouncedRecipients: recipients.map((r) => ({ emailAddress: r.emailAddress, action: 'failed', status: r.status ?? '5.1.1', diagnosticCode: r.diagnosticCode ?? 'smtp; 550 5.1.1 user unknown' })),
      timestamp: at(),
      reportingMTA: 'dns; email.example.com',
    },
    mail: mail(about),
  };
}

export function complaintEvent(about: AboutMessage, recipients: string[], complaintFeedbackType = 'abuse') {
  return {
    ...typed(about, 'Complaint'),
    complaint: {
      feedbackId: '0100017b1f5a2c3d-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d-000000',
      complaintSubType: null,
      complainedRecipients: recipients.map((emailAddress) => ({ emailAddress })),
      timestamp: at(),
      userAgent: 'Mozilla/5.0 (Windows NT 5.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.90 Safari/537.36',
      complaintFeedbackType,
      arrivalDate: at(),
    },
    mail: mail(about),
  };
}

export function rejectEvent(about: AboutMessage) {
  return { ...typed(about, 'Reject'), mail: mail(about), reject: { reason: 'Bad content' } };
}

export function deliveryDelayEvent(about: AboutMessage, recipients: string[]) {
  return {
    ...typed(about, 'DeliveryDelay'),
    mail: mail(about),
    deliveryDelay: {
      timestamp: at(),
      delayType: 'TransientCommunicationFailure',
      expirationTime: new Date(Date.now() + 86_400_000).toISOString(),
      delayedRecipients: recipients.map((emailAddress) => ({ emailAddress, status: '4.4.1', diagnosticCode: 'smtp; 421 4.4.1 Unable to connect to remote host' })),
    },
  };
}
