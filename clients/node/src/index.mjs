// A client of cosid serve that hands out ids from ranges it leases, refilled ahead.
//
// A Client takes a range of a generator's ids with one call of IdService.NextRange,
// through the client that protoc-gen-es generated from proto/cosid/v1 (src/gen) on a
// transport of @connectrpc/connect-node, hands the ids out locally, and takes the
// next range before the current one runs out, as tinyid's client does. With several
// URLs it fails over: a server that refuses the connection, times out or answers
// unavailable is left for the next, and the call is asked again there (a range a
// failed call may have taken is only a gap, never a duplicate).

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { Http2SessionManager, createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema, IdService } from "./gen/cosid/v1/ids_pb.js";

const MAX_SIZE = 10_000; // the server's cap on a range

// The header in which every range answer names the identity of its store
// (store/httpstore/wire.HeaderStoreID).
const STORE_ID_HEADER = "cosid-store-id";

// CosIdError is an error of cosid serve or of reaching it: code is the Connect code
// ("unavailable", "not_found", ...; "" when no server answered), cosidCode the code
// of cosid serve's ErrorInfo detail ("unknown_generator", "sealed", ...), url the
// server that gave it.
export class CosIdError extends Error {
  constructor(message, { code = "", cosidCode = "", url = "", cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "CosIdError";
    this.code = code;
    this.cosidCode = cosidCode;
    this.url = url;
  }
}

// A failure of one server that the next server may not have.
class Retry extends Error {}

// Codes that another server may not give: it is down, slow, or older than this
// client (unimplemented). The client cancels no call itself, so canceled is a
// connection that its server closed: an HTTP/2 stream reset as the server goes.
const retryable = new Set([
  Code.Canceled,
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Unknown,
  Code.Internal,
  Code.Aborted,
  Code.Unimplemented,
  Code.DataLoss,
]);

// The transports of the option protocol. Connect goes over HTTP/1.1: cosid serve's
// HTTP listener speaks HTTP/2 only over TLS or with serve.h2c on, and HTTP/1.1
// always. gRPC needs HTTP/2, which the gRPC listener (serve.grpc-addr) speaks without
// TLS too; its connection is the client's own, closed by close().
const protocols = {
  connect: (baseUrl, interceptors) => ({ transport: createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }) }),
  grpc: (baseUrl, interceptors) => {
    const sessionManager = new Http2SessionManager(baseUrl);
    return { transport: createGrpcTransport({ baseUrl, httpVersion: "2", sessionManager, interceptors }), sessionManager };
  },
};

// Client hands out the ids of one generator (and key) from leased ranges. Ids are
// BigInts: they pass 2^53. Ids of one Client are unique, and unique across every
// client of the servers' store; they rise within a range, not across ranges of
// different servers.
//
// Options: urls (one string or an array, tried in order and failed over), generator
// (a segment generator's name), key (a key of a keyed one), token (the ids role's
// bearer token), size (ids of each range, 1 to 10,000; default 1,000), refillAt (the
// share of a range left when the next is taken ahead; default 0.3), timeoutMs (per
// call; default 5,000), storeId (the identity of the store the servers must share,
// which every range answer names in its header Cosid-Store-Id: a range of a server
// that names another is refused, never handed out; without it the client pins the
// first identity it sees, so one client never mixes two stores), protocol ("connect",
// the default, to the HTTP listener; "grpc" to the gRPC listener of serve.grpc-addr).
export class Client {
  #servers; #request; #size; #low; #timeoutMs; #storeId;
  #server = 0;
  #next = 0n;
  #end = 0n;
  #ahead = null; // a Promise of the range taken ahead, {start, end}
  #closed = false;

  constructor({ urls, generator, key = "", token = "", size = 1000, refillAt = 0.3, timeoutMs = 5000, storeId = "", protocol = "connect" } = {}) {
    const list = (typeof urls === "string" ? [urls] : Array.isArray(urls) ? urls : []).map((u) => String(u).replace(/\/+$/, ""));
    if (list.length === 0 || !list.every((u) => /^https?:\/\//.test(u))) {
      throw new TypeError(`urls ${JSON.stringify(urls)}: want one or more http:// or https:// URLs`);
    }
    if (!generator) throw new TypeError("generator is empty: want a segment generator's name");
    if (!Number.isInteger(size) || size < 1 || size > MAX_SIZE) {
      throw new RangeError(`size ${size}: want an integer from 1 to ${MAX_SIZE}, the server's cap on a range`);
    }
    if (!(refillAt > 0 && refillAt < 1)) throw new RangeError(`refillAt ${refillAt}: want a share above 0 and below 1`);
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs ${timeoutMs}: want milliseconds above 0`);
    if (!Object.hasOwn(protocols, protocol)) {
      throw new TypeError(`protocol ${JSON.stringify(protocol)}: want "connect" (the HTTP listener) or "grpc" (serve.grpc-addr)`);
    }
    const interceptors = token ? [bearer(token)] : [];
    this.#servers = list.map((url) => {
      const { transport, sessionManager } = protocols[protocol](url, interceptors);
      return { url, ids: createClient(IdService, transport), sessionManager };
    });
    this.#request = { name: generator, key, count: BigInt(size) };
    this.#size = BigInt(size);
    this.#low = BigInt(Math.max(1, Math.floor(size * refillAt)));
    this.#timeoutMs = timeoutMs;
    this.#storeId = storeId;
  }

  // next resolves to the next id, a BigInt; it waits for a server only when no id
  // is at hand.
  async next() {
    for (;;) {
      if (this.#closed) throw new CosIdError("cosid client: the client is closed");
      if (this.#next < this.#end) {
        const v = this.#next++;
        if (this.#end - this.#next <= this.#low && this.#ahead === null) this.#refill();
        return v;
      }
      if (this.#ahead === null) this.#refill();
      const ahead = this.#ahead;
      let range;
      try {
        range = await ahead;
      } finally {
        // The first caller to see the range (or its failure) takes it; the others
        // loop and find it in place, or start the next take.
        if (this.#ahead === ahead) this.#ahead = null;
      }
      if (this.#next >= this.#end && range) [this.#next, this.#end] = [range.start, range.end];
      range.start = range.end; // a range is used once, whoever awaited it
    }
  }

  // close stops the client: later calls of next fail, and its gRPC connections
  // close. The unused ids are a gap.
  close() {
    this.#closed = true;
    for (const s of this.#servers) s.sessionManager?.abort();
  }

  #refill() {
    this.#ahead = this.#take();
    this.#ahead.catch(() => {}); // its failure is thrown to the caller who awaits it
  }

  async #take() {
    const failures = [];
    const n = this.#servers.length;
    for (let i = 0; i < n; i++) {
      const at = (this.#server + i) % n;
      const { url } = this.#servers[at];
      let answer;
      try {
        let storeId;
        [answer, storeId] = await this.#call(this.#servers[at]);
        this.#checkStore(url, storeId);
      } catch (e) {
        if (!(e instanceof Retry)) throw e;
        failures.push(e.message);
        continue;
      }
      const { start, end } = answer;
      if (start < 0n || end <= start || end - start > this.#size) {
        throw new CosIdError(`${url}: range [${start}, ${end}) for ${this.#size} ids: refused, not a range of this size`, { url });
      }
      this.#server = at;
      return { start, end };
    }
    throw new CosIdError(`cosid client: no server answered: ${failures.join("; ")}`);
  }

  // #checkStore refuses a range of a store other than the client's: the next
  // server may have it.
  #checkStore(url, got) {
    if (!this.#storeId) {
      this.#storeId = got; // the first store seen is the client's from now on
      return;
    }
    if (got !== this.#storeId) {
      throw new Retry(
        `${url}: refused: its store is ${JSON.stringify(got || "not named (a server without identities)")}, ` +
          `not ${JSON.stringify(this.#storeId)}, the store of this client's ranges; fix the server's configuration or the client's storeId`,
      );
    }
  }

  // #call takes a range of server and returns it with the store identity that its
  // answer's header names.
  async #call({ url, ids }) {
    let storeId = "";
    try {
      const answer = await ids.nextRange(this.#request, {
        timeoutMs: this.#timeoutMs,
        onHeader: (h) => {
          storeId = h.get(STORE_ID_HEADER) ?? "";
        },
      });
      return [answer, storeId];
    } catch (e) {
      const err = ConnectError.from(e);
      const code = codeToString(err.code);
      const message = `${url}: ${code}: ${err.rawMessage}`;
      if (retryable.has(err.code)) throw new Retry(message);
      const cosidCode = err.findDetails(ErrorInfoSchema)[0]?.code ?? "";
      throw new CosIdError(message, { code, cosidCode, url, cause: e });
    }
  }
}

// bearer sends the ids role's token with every call.
function bearer(token) {
  return (next) => (req) => {
    req.header.set("Authorization", `Bearer ${token}`);
    return next(req);
  };
}
