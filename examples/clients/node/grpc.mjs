// A gRPC client of cosid serve with grpc-js, on its gRPC listener (serve.grpc-addr,
// --grpc-addr): the packages of package.json (npm ci), the schema read from
// proto/cosid/v1 at run time.
//
//   COSID_GRPC_ADDR=127.0.0.1:8687 COSID_TOKEN=... node grpc.mjs
//
// Environment: COSID_GRPC_ADDR (the gRPC listener, without TLS), COSID_TOKEN (the
// bearer token, if the server has one), COSID_GENERATOR (default order), COSID_PROTO
// (the directory of cosid/v1/ids.proto, default the repository's proto/).

import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const protoDir = process.env.COSID_PROTO ?? fileURLToPath(new URL("../../../proto", import.meta.url));
const def = protoLoader.loadSync("cosid/v1/ids.proto", {
  includeDirs: [protoDir],
  longs: String, // int64 fields pass 2^53: strings, as in the JSON of /v1
  defaults: true,
});
const { IdService } = grpc.loadPackageDefinition(def).cosid.v1;

const addr = process.env.COSID_GRPC_ADDR ?? "127.0.0.1:8687";
const client = new IdService(addr, grpc.credentials.createInsecure());
const metadata = new grpc.Metadata();
if (process.env.COSID_TOKEN) metadata.set("authorization", `Bearer ${process.env.COSID_TOKEN}`);

// next calls IdService.Next; an error answer rejects with its status and message.
function next(name, count) {
  return new Promise((resolve, reject) => {
    client.next({ name, count }, metadata, { deadline: Date.now() + 10_000 }, (err, res) => {
      if (err) reject(new Error(`IdService.Next: ${grpc.status[err.code]}: ${err.details}`));
      else resolve(res.ids);
    });
  });
}

try {
  for (const id of await next(process.env.COSID_GENERATOR ?? "order", 3)) {
    console.log("grpc id", id);
  }
} finally {
  client.close();
}
