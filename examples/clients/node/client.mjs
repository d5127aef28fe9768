// A client of cosid serve with Node's built-in fetch (Node 18 and later), no packages.
//
// It takes ids over /v1, then reserves a range through the store API and hands its
// ids out locally, as a process that needs ids faster than one call per id would.
//
//   COSID_URL=http://127.0.0.1:8686 COSID_TOKEN=... node client.mjs
//
// Environment: COSID_URL (the server), COSID_TOKEN (the bearer token, if the server
// has one), COSID_GENERATOR (default order), COSID_KEY (the store key to reserve
// from, default examples/node).

const base = (process.env.COSID_URL ?? "http://127.0.0.1:8686").replace(/\/+$/, "");
const token = process.env.COSID_TOKEN ?? "";

// call sends one request and returns its JSON answer; an error answer, or none,
// throws.
async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let resp;
  try {
    resp = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "error", // the token must not follow a redirect elsewhere
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    // No answer at all: fetch says "fetch failed" and puts the reason in cause.
    const reason = e.cause?.message ?? e.message;
    throw new Error(`${method} ${base}${path}: no answer from cosid serve: ${reason} (is it running at COSID_URL=${base}?)`);
  }
  const answer = await resp.json();
  if (!resp.ok) {
    // Every error of cosid serve is {"code": ..., "message": ...}.
    throw new Error(`${method} ${path}: ${resp.status} ${answer.code}: ${answer.message}`);
  }
  return answer;
}

// LocalRange hands out the ids of a reserved range [start, end) without calling the
// server. Ids pass 2^53, so the API sends them as strings, and they are BigInts here.
class LocalRange {
  static async reserve(key, size) {
    const r = await call("POST", "/v1/store/reserve", { key, size, initialOffset: 1 });
    console.log(`range ${r.start} ${r.end}`);
    return new LocalRange(BigInt(r.start), BigInt(r.end));
  }

  constructor(start, end) {
    this.next = start;
    this.end = end;
  }

  take() {
    if (this.next >= this.end) return undefined;
    return this.next++;
  }
}

// main takes the ids; an error is one line on stderr and exit status 1.
async function main() {
  const name = encodeURIComponent(process.env.COSID_GENERATOR ?? "order");
  for (const id of (await call("GET", `/v1/generators/${name}/next?count=5`)).ids) {
    console.log("id", id);
  }
  console.log("id", (await call("GET", `/v1/generators/${name}/next`)).ids[0]);

  const local = await LocalRange.reserve(process.env.COSID_KEY ?? "examples/node", 100);
  for (let v = local.take(); v !== undefined; v = local.take()) {
    console.log("local", v.toString());
  }
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
