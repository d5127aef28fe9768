// A client of cosid serve that hands out ids from ranges it leases, refilled ahead.
//
// A Client takes a range of a generator's ids with one call of the Connect API
// (cosid.v1.IdService/NextRange, its JSON protocol over the built-in fetch), hands
// them out locally, and takes the next range before the current one runs out, as
// tinyid's client does. With several URLs it fails over: a server that refuses the
// connection, times out or answers unavailable is left for the next, and the call is
// asked again there (a range a failed call may have taken is only a gap, never a
// duplicate). Node 18 or later, no packages.

const MAX_SIZE = 10_000; // the server's cap on a range

// CosIdError is an error of cosid serve or of reaching it: code is the Connect code
// ("unavailable", "not_found", ...), status the HTTP status (0 when no server
// answered), url the server that gave it.
export class CosIdError extends Error {
  constructor(message, { code = "", status = 0, url = "" } = {}) {
    super(message);
    this.name = "CosIdError";
    this.code = code;
    this.status = status;
    this.url = url;
  }
}

// A failure of one server that the next server may not have.
class Retry extends Error {}

// Connect codes that another server may not give.
const retryable = new Set(["unavailable", "deadline_exceeded", "unknown", "internal", "aborted"]);

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
// first identity it sees, so one client never mixes two stores).
export class Client {
  #urls; #body; #token; #size; #low; #timeoutMs; #storeId;
  #server = 0;
  #next = 0n;
  #end = 0n;
  #ahead = null; // a Promise of the range taken ahead, {start, end}
  #closed = false;

  constructor({ urls, generator, key = "", token = "", size = 1000, refillAt = 0.3, timeoutMs = 5000, storeId = "" } = {}) {
    const list = typeof urls === "string" ? [urls] : Array.isArray(urls) ? urls : [];
    this.#urls = list.map((u) => String(u).replace(/\/+$/, ""));
    if (this.#urls.length === 0 || !this.#urls.every((u) => /^https?:\/\//.test(u))) {
      throw new TypeError(`urls ${JSON.stringify(urls)}: want one or more http:// or https:// URLs`);
    }
    if (!generator) throw new TypeError("generator is empty: want a segment generator's name");
    if (!Number.isInteger(size) || size < 1 || size > MAX_SIZE) {
      throw new RangeError(`size ${size}: want an integer from 1 to ${MAX_SIZE}, the server's cap on a range`);
    }
    if (!(refillAt > 0 && refillAt < 1)) throw new RangeError(`refillAt ${refillAt}: want a share above 0 and below 1`);
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs ${timeoutMs}: want milliseconds above 0`);
    this.#body = JSON.stringify({ name: generator, key, count: size });
    this.#token = token;
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

  // close stops the client: later calls of next fail. The unused ids are a gap.
  close() {
    this.#closed = true;
  }

  #refill() {
    this.#ahead = this.#take();
    this.#ahead.catch(() => {}); // its failure is thrown to the caller who awaits it
  }

  async #take() {
    const failures = [];
    const n = this.#urls.length;
    for (let i = 0; i < n; i++) {
      const at = (this.#server + i) % n;
      const url = this.#urls[at];
      let answer;
      try {
        let storeId;
        [answer, storeId] = await this.#call(url, "/cosid.v1.IdService/NextRange", this.#body);
        this.#checkStore(url, storeId);
      } catch (e) {
        if (!(e instanceof Retry)) throw e;
        failures.push(e.message);
        continue;
      }
      let start, end;
      try {
        start = BigInt(answer.start ?? 0);
        end = BigInt(answer.end ?? 0);
      } catch (e) {
        throw new CosIdError(`${url}: the range answer is not one: ${e.message}`, { url });
      }
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

  // #call sends a Connect unary call and returns its answer and the store identity
  // of its header.
  async #call(url, path, body) {
    const headers = { Accept: "application/json", "Content-Type": "application/json", "Connect-Protocol-Version": "1" };
    if (this.#token) headers.Authorization = `Bearer ${this.#token}`;
    let resp, text;
    try {
      resp = await fetch(url + path, {
        method: "POST",
        headers,
        body,
        redirect: "error", // the token must not follow a redirect elsewhere
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await resp.text();
    } catch (e) {
      // Refused, reset or timed out: another server may answer.
      throw new Retry(`${url}: ${e.cause?.code ?? e.name}: ${e.cause?.message ?? e.message}`);
    }
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = { message: text.slice(0, 200) };
    }
    if (resp.ok) return [answer, resp.headers.get("cosid-store-id") ?? ""];
    const code = answer.code ?? "";
    const message = `${url}: ${resp.status} ${code}: ${answer.message ?? ""}`;
    if (resp.status >= 500 || retryable.has(code)) throw new Retry(message);
    throw new CosIdError(message, { code, status: resp.status, url });
  }
}
