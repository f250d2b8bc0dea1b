/**
 * A typed client of the emulator's control plane (`/emulator/v1/...`, emulator/http/control.py):
 * not Turnkey's API, the test seams around it. Every method is one request; errors are
 * `ControlError`s carrying the API's error shape.
 */
import type {
  AuthProxyConfig,
  CallFilter,
  CallRecord,
  ChainBalance,
  ClockState,
  FaultRule,
  Json,
  OutboxFilter,
  OutboxMessage,
  PublicInfo,
  WebhookDelivery,
  WebhookFilter,
} from "./types.js";

/** A control request the emulator refused, or could not be reached for. */
export class ControlError extends Error {
  readonly status: number;
  readonly code: number | undefined;
  readonly turnkeyErrorCode: string | undefined;

  constructor(status: number, message: string, code?: number, turnkeyErrorCode?: string) {
    super(message);
    this.name = "ControlError";
    this.status = status;
    this.code = code;
    this.turnkeyErrorCode = turnkeyErrorCode;
  }
}

export interface WaitOptions {
  /** Give up after this long (default 10 000 ms): a `ControlError` with status 408. */
  timeoutMs?: number;
  /** Poll this often (default 25 ms). */
  intervalMs?: number;
}

export interface NextMessageOptions extends WaitOptions {
  /** Only a message newer than this one (its id, or the message). */
  after?: string | OutboxMessage | null;
  channel?: "email" | "sms";
  template?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sequence = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1));

export class EmulatorControl {
  readonly baseUrl: string;
  readonly #token: string | null;

  constructor(baseUrl: string, controlToken?: string | null) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#token = controlToken ?? null;
  }

  /** POST `/emulator/v1/<name>` with `body`; its JSON answer. */
  async request<T = Json>(name: string, body: Json = {}): Promise<T> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.#token) headers.Authorization = `Bearer ${this.#token}`;
    let answer: Response;
    try {
      answer = await fetch(`${this.baseUrl}/emulator/v1/${name}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body, (_key, value) =>
          typeof value === "bigint" ? value.toString() : value,
        ),
      });
    } catch (error) {
      throw new ControlError(0, `the emulator at ${this.baseUrl} cannot be reached: ${String(error)}`);
    }
    const text = await answer.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new ControlError(answer.status, `not JSON from /emulator/v1/${name}: ${text.slice(0, 200)}`);
    }
    if (!answer.ok) {
      const error = parsed as { message?: string; code?: number; turnkeyErrorCode?: string };
      throw new ControlError(
        answer.status,
        error.message ?? `HTTP ${answer.status}`,
        error.code,
        error.turnkeyErrorCode,
      );
    }
    return parsed as T;
  }

  /** `{ok, organizationId}`. */
  health(): Promise<{ ok: boolean; organizationId: string | null }> {
    return this.request("health");
  }

  /** The public half of `serve`'s first line: ids, the root public key, the enclave keys. */
  info(): Promise<PublicInfo> {
    return this.request("info");
  }

  /** Back to the organization `serve` bootstrapped (its credentials keep working). */
  reset(): Promise<{ organizationId: string | null }> {
    return this.request("reset");
  }

  /** Save the whole world; the id `restore` takes. */
  async snapshot(): Promise<string> {
    return (await this.request<{ snapshotId: string }>("snapshot")).snapshotId;
  }

  /**
   * Put the world back as it was at `snapshot` (the snapshot stays, for the next restore);
   * with `clearObservations`, empty the outbox, the call log, pending faults and webhook
   * deliveries too (a snapshot holds the world, not what was observed of it).
   */
  async restore(snapshotId: string, options: { clearObservations?: boolean } = {}): Promise<void> {
    await this.request("restore", { snapshotId, ...options });
  }

  /** The emulator's clock: timestamps, expiries, the timestamp window, rate-limit buckets. */
  readonly clock = {
    /** Stop the clock (at `atMs`, epoch milliseconds, or now). */
    freeze: (atMs?: number): Promise<ClockState> =>
      this.request("clock", atMs === undefined ? { freeze: true } : { freezeAtMs: atMs }),
    /** Let it run again from where it stands. */
    unfreeze: (): Promise<ClockState> => this.request("clock", { unfreeze: true }),
    /** Move it on (frozen or not). */
    advance: (seconds: number): Promise<ClockState> =>
      this.request("clock", { advanceSeconds: seconds }),
    /** Where it stands. */
    now: (): Promise<ClockState> => this.request("clock"),
  };

  /** The e-mails and SMS the service would have sent (OTP codes, magic links, invitations). */
  readonly outbox = {
    /** Oldest first. */
    list: async (filter: OutboxFilter = {}): Promise<OutboxMessage[]> =>
      (await this.request<{ messages: OutboxMessage[] }>("outbox", { ...filter })).messages,
    clear: async (): Promise<void> => {
      await this.request("outbox/clear");
    },
    /** The newest message to `to`, or undefined. */
    latest: async (to: string, filter: Omit<OutboxFilter, "to"> = {}) =>
      (await this.outbox.list({ ...filter, to })).at(-1),
    /**
     * The next message to `to`: the first one newer than `after` (by default: newer than
     * every message to `to` when this is called), waiting for it to be sent.
     */
    waitForNext: async (to: string, options: NextMessageOptions = {}): Promise<OutboxMessage> => {
      const filter = { to, channel: options.channel, template: options.template };
      let after = options.after;
      if (after === undefined) after = (await this.outbox.list(filter)).at(-1) ?? null;
      const afterId = typeof after === "string" ? after : after?.id;
      return this.#poll(`a message to ${to}`, options, async () =>
        (await this.outbox.list(filter)).find(
          (message) => afterId === undefined || sequence(message.id) > sequence(afterId),
        ),
      );
    },
    /**
     * Start watching `to` now; `next()` answers the first message sent after this call,
     * then the one after it, and so on. Race-free: call it before the action that sends.
     */
    watch: async (to: string, options: Omit<NextMessageOptions, "after"> = {}) => {
      let last: string | OutboxMessage | null =
        (await this.outbox.list({ to, channel: options.channel, template: options.template })).at(-1) ?? null;
      return {
        next: async (waitOptions: WaitOptions = {}): Promise<OutboxMessage> => {
          const message = await this.outbox.waitForNext(to, { ...options, ...waitOptions, after: last });
          last = message;
          return message;
        },
      };
    },
    /** The OTP code of the next message to `to` (see `waitForNext`). */
    nextOtpCode: async (to: string, options: NextMessageOptions = {}): Promise<string> => {
      const message = await this.outbox.waitForNext(to, options);
      const code = message.fields.otpCode;
      if (typeof code !== "string") {
        throw new ControlError(404, `the message ${message.id} to ${to} (${message.template}) carries no OTP code`);
      }
      return code;
    },
  };

  /** Every API request and how it ended. */
  readonly calls = {
    list: async (filter: CallFilter = {}): Promise<CallRecord[]> =>
      (await this.request<{ calls: CallRecord[] }>("calls", { ...filter })).calls,
    clear: async (): Promise<void> => {
      await this.request("calls/clear");
    },
  };

  /** Make the next calls fail as the real service can. */
  readonly faults = {
    /** The rule; answers the rules pending. */
    failNext: async (rule: FaultRule = {}): Promise<Json[]> =>
      (await this.request<{ pending: Json[] }>("faults", { ...rule })).pending,
    clear: async (): Promise<void> => {
      await this.request("faults/clear");
    },
  };

  /** Webhook deliveries with their attempts. */
  readonly webhooks = {
    list: async (filter: WebhookFilter = {}): Promise<WebhookDelivery[]> =>
      (await this.request<{ deliveries: WebhookDelivery[] }>("webhooks", { ...filter })).deliveries,
    clear: async (): Promise<void> => {
      await this.request("webhooks/clear");
    },
    /** Set the synchronous switch (when given), then wait until no attempt is due. */
    run: (options: { synchronous?: boolean; timeoutSeconds?: number } = {}) =>
      this.request<{ settled: boolean; synchronous: boolean }>("webhooks/run", { ...options }),
  };

  /** The embedded chains' funding seam (like Anvil's `setBalance`). */
  readonly chains = {
    /** Set `address`'s native balance on `caip2` to `amount` atomic units (wei, lamports). */
    fund: async (caip2: string, address: string, amount: bigint | number | string): Promise<ChainBalance> =>
      balanceOf(await this.request("chains/fund", { caip2, address, amount: BigInt(amount).toString() })),
    balance: async (caip2: string, address: string): Promise<ChainBalance> =>
      balanceOf(await this.request("chains/balance", { caip2, address })),
  };

  /** Auth Proxy configurations (served under `<baseUrl>/authproxy`). */
  readonly authProxy = {
    list: async (): Promise<AuthProxyConfig[]> =>
      (await this.request<{ configs: AuthProxyConfig[] }>("auth_proxy")).configs,
    /** A new configuration (wire names: `enabledProviders`, `otpLength`, `allowedOrigins`...). */
    configure: (settings: Json = {}): Promise<AuthProxyConfig> =>
      this.request("auth_proxy/configure", { ...settings }),
    update: (configId: string, changes: Json): Promise<AuthProxyConfig> =>
      this.request("auth_proxy/configure", { ...changes, configId }),
  };

  /** The built-in OAuth 2.0 provider (X, Discord) of `oauth2_authenticate`. */
  readonly oauth2 = {
    registerClient: (client: { provider?: string; clientId?: string; clientSecret?: string; redirectUris?: string[] } = {}) =>
      this.request<{ provider: string; clientId: string; clientSecret: string }>("oauth2/clients", { ...client }),
    authorize: async (grant: {
      provider: string;
      clientId: string;
      userId: string;
      redirectUri: string;
      codeChallenge: string;
      codeChallengeMethod?: string;
      expiresInSeconds?: number;
    }): Promise<string> => (await this.request<{ code: string }>("oauth2/authorize", { ...grant })).code,
  };

  /** The documented rate limits: `set("pro")` enforces a plan with fresh buckets, `set(null)` none. */
  readonly rateLimits = {
    get: () => this.request<{ plan: string | null } & Json>("rate_limits"),
    set: (plan: string | null) => this.request<{ plan: string | null } & Json>("rate_limits", { plan }),
  };

  async #poll<T>(what: string, options: WaitOptions, attempt: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      const found = await attempt();
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        throw new ControlError(408, `no ${what} within ${options.timeoutMs ?? 10_000} ms`);
      }
      await sleep(options.intervalMs ?? 25);
    }
  }
}

function balanceOf(answer: Json): ChainBalance {
  return {
    caip2: String(answer.caip2),
    address: String(answer.address),
    balance: BigInt(String(answer.balance)),
  };
}
