// Drives IdService.ReadRanges from Node for integration/clients, through the code
// protoc-gen-es generated (clients/node/src/gen) on connect-node's gRPC transport:
// asks for COSID_AHEAD ranges of COSID_SIZE ids and one more after each range it
// reads, prints "range START END" for COSID_READ ranges, then "pause", waits for a
// line on stdin, closes its side, prints the ranges still asked for as they come,
// and "done" at the stream's end.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

// The packages are those of clients/node, installed there (npm ci --prefix clients/node).
const require = createRequire(new URL("../../../clients/node/package.json", import.meta.url));
const { createClient } = await import(require.resolve("@connectrpc/connect"));
const { createGrpcTransport } = await import(require.resolve("@connectrpc/connect-node"));
const { IdService } = await import("../../../clients/node/src/gen/cosid/v1/ids_pb.js");

// asks is the stream of the client's messages: an async iterable fed by push.
function queue() {
  const items = [];
  let wake = null;
  let ended = false;
  return {
    push(m) { items.push(m); wake?.(); },
    end() { ended = true; wake?.(); },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (items.length > 0) yield items.shift();
        if (ended) return;
        await new Promise((resolve) => { wake = resolve; });
        wake = null;
      }
    },
  };
}

const env = process.env;
const ahead = BigInt(env.COSID_AHEAD), read = Number(env.COSID_READ);
const transport = createGrpcTransport({ baseUrl: env.COSID_URLS, httpVersion: "2" });
const client = createClient(IdService, transport);
const asks = queue();
asks.push({ name: env.COSID_GENERATOR ?? "order", size: BigInt(env.COSID_SIZE), want: ahead });
const ranges = client.readRanges(asks, { headers: { authorization: `Bearer ${env.COSID_TOKEN}` } })[Symbol.asyncIterator]();
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const print = (s) => new Promise((resolve) => process.stdout.write(s, resolve));
for (let i = 0; i < read; i++) {
  const { value, done } = await ranges.next();
  if (done) throw new Error(`the stream ended after ${i} ranges`);
  await print(`range ${value.start} ${value.end}\n`);
  asks.push({ want: 1n });
}
await print("pause\n");
await lines.next();
asks.end();
for (;;) {
  const { value, done } = await ranges.next();
  if (done) break;
  await print(`range ${value.start} ${value.end}\n`);
}
await print("done\n");
process.stdin.destroy();
