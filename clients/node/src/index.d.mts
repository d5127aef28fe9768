// The types of index.mjs, for TypeScript users of @cosid-go/client.

/** CosIdError is an error of cosid serve or of reaching it. */
export declare class CosIdError extends Error {
  constructor(message: string, options?: { code?: string; cosidCode?: string; url?: string; cause?: unknown });
  /** code is the Connect code ("unavailable", "not_found", ...); "" when no server answered. */
  readonly code: string;
  /** cosidCode is the code of cosid serve's ErrorInfo detail ("unknown_generator", "sealed", ...). */
  readonly cosidCode: string;
  /** url is the server that gave the error. */
  readonly url: string;
}

/** ClientOptions are the options of a Client. */
export interface ClientOptions {
  /** urls are the servers, tried in order and failed over. */
  urls: string | string[];
  /** generator is a segment generator's name. */
  generator: string;
  /** key is a key of a keyed generator. */
  key?: string;
  /** token is the ids role's bearer token. */
  token?: string;
  /** size is the ids of each range, 1 to 10,000; default 1,000. */
  size?: number;
  /** refillAt is the share of a range left when the next is taken ahead; default 0.3. */
  refillAt?: number;
  /** timeoutMs is the milliseconds of each call; default 5,000. */
  timeoutMs?: number;
  /** storeId is the identity of the store the servers must share (Cosid-Store-Id). */
  storeId?: string;
  /** protocol is "connect" (the HTTP listener, the default) or "grpc" (serve.grpc-addr). */
  protocol?: "connect" | "grpc";
}

/** Client hands out the ids of one generator (and key) from leased ranges. */
export declare class Client {
  constructor(options: ClientOptions);
  /** next resolves to the next id. */
  next(): Promise<bigint>;
  /** close stops the client; later calls of next fail. */
  close(): void;
}
