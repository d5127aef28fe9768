// Drives the Node client for integration/clients: prints "id N" for COSID_FIRST ids,
// then "pause", waits for a line on stdin, then prints COSID_THEN more and "done".
import { createInterface } from "node:readline";
import { Client, CosIdError } from "../../../clients/node/src/index.mjs";

const env = process.env;
const client = new Client({
  urls: env.COSID_URLS.split(","),
  generator: env.COSID_GENERATOR ?? "order",
  token: env.COSID_TOKEN ?? "",
  size: Number(env.COSID_SIZE ?? "100"),
  timeoutMs: Number(env.COSID_TIMEOUT ?? "5") * 1000,
  storeId: env.COSID_STORE_ID ?? "",
  protocol: env.COSID_PROTOCOL ?? "connect",
});
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const out = [];
const flush = () => new Promise((resolve) => process.stdout.write(out.splice(0).join(""), resolve));
try {
  for (let i = 0; i < Number(env.COSID_FIRST ?? "0"); i++) out.push(`id ${await client.next()}\n`);
  out.push("pause\n");
  await flush();
  await lines.next();
  for (let i = 0; i < Number(env.COSID_THEN ?? "0"); i++) out.push(`id ${await client.next()}\n`);
  out.push("done\n");
  await flush();
} catch (e) {
  if (!(e instanceof CosIdError)) throw e;
  out.push(`error ${e.message}\n`);
  await flush();
  process.exitCode = 1;
} finally {
  client.close();
  process.stdin.destroy();
}
