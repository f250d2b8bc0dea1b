/** What `python -m emulator serve` prints as its first line (emulator/cli.py). */
export interface ServeInfo {
  baseUrl: string;
  organizationId: string;
  organizationName: string;
  userId: string;
  apiKeyId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  signerPublicKey: string;
  notarizerPublicKey: string;
  tlsFetcherPublicKey: string;
  tlsFetcherEncryptPublicKey: string;
  controlToken: string | null;
  dashboardUrl: string;
  authProxyUrl: string | null;
  authProxyConfigId: string | null;
  rateLimits: string | null;
}

/**
 * The emulator's enclave keys under the names of the official SDKs' test overrides
 * (`@turnkey/crypto`: `decryptExportBundle`, `encryptWalletToBundle`... take
 * `dangerouslyOverrideSignerPublicKey`; `verifySessionJwtSignature` takes
 * `dangerouslyOverrideNotarizerPublicKey`; `encryptOauth2ClientSecret` takes
 * `dangerouslyOverrideTlsFetcherPublicKey`, the key OAuth 2.0 client secrets are encrypted to).
 */
export interface KeyOverrides {
  dangerouslyOverrideSignerPublicKey: string;
  dangerouslyOverrideNotarizerPublicKey: string;
  dangerouslyOverrideTlsFetcherPublicKey: string;
}

/** `new Turnkey(config)` of `@turnkey/sdk-server` for the root user. */
export interface TurnkeyServerConfig {
  apiBaseUrl: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  defaultOrganizationId: string;
}

export type Json = Record<string, unknown>;

export interface OutboxMessage {
  id: string;
  timeNs: number;
  timeMs: number;
  channel: "email" | "sms";
  to: string;
  senderAddress: string;
  senderName: string;
  replyTo: string | null;
  template: string;
  organizationId: string;
  /** What the message carries: `otpCode`, `otpId`, `magicLink`, `credentialBundle`... */
  fields: Record<string, unknown>;
}

export interface OutboxFilter {
  channel?: "email" | "sms";
  to?: string;
  template?: string;
  organizationId?: string;
}

export interface CallRecord {
  seq: number;
  timeNs: number;
  operation: string;
  kind: string;
  httpStatus: number;
  errorCode: number | null;
  errorMessage: string | null;
  activityId: string | null;
  organizationId: string | null;
  userId: string | null;
  [field: string]: unknown;
}

export interface CallFilter {
  operation?: string;
  status?: string;
  userId?: string;
  organizationId?: string;
}

/** A fault: the next `count` calls of `operation` (any operation when absent) fail. */
export interface FaultRule {
  operation?: string;
  count?: number;
  status?: number;
  code?: number;
  message?: string;
  turnkeyErrorCode?: string;
  activityStatus?: string;
  organizationId?: string;
}

export interface ClockState {
  nowMs: number;
  frozen: boolean;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  organizationId: string;
  url: string;
  body: unknown;
  createdMs: number;
  state: string;
  attempts: Array<{
    number: number;
    timeMs: number;
    headers: Record<string, string>;
    status: number | null;
    answer: string | null;
    error: string | null;
  }>;
  nextAttemptMs: number | null;
}

export interface WebhookFilter {
  endpointId?: string;
  eventType?: string;
  state?: string;
  organizationId?: string;
}

/** An Auth Proxy configuration (emulator/authproxy/config.py), wire names. */
export interface AuthProxyConfig {
  configId: string;
  organizationId: string;
  enabledProviders: string[];
  sessionExpirationSeconds: number;
  [setting: string]: unknown;
}

export interface ChainBalance {
  caip2: string;
  address: string;
  balance: bigint;
}

export interface PublicInfo {
  organizationId: string | null;
  organizationName: string | null;
  userId: string | null;
  apiKeyId: string | null;
  apiPublicKey: string | null;
  signerPublicKey: string;
  notarizerPublicKey: string;
  tlsFetcherPublicKey: string;
  tlsFetcherEncryptPublicKey: string;
}
