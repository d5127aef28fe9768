"""Drives cosid_client for integration/clients: prints "id N" for COSID_FIRST ids,
then "pause", waits for a line on stdin, then prints COSID_THEN more and "done"."""
import os
import sys

from cosid_client import Client, CosIdError

client = Client(os.environ["COSID_URLS"].split(","), os.environ.get("COSID_GENERATOR", "order"),
                token=os.environ.get("COSID_TOKEN", ""), size=int(os.environ.get("COSID_SIZE", "100")),
                timeout=float(os.environ.get("COSID_TIMEOUT", "5")), store_id=os.environ.get("COSID_STORE_ID", ""))
try:
    for _ in range(int(os.environ.get("COSID_FIRST", "0"))):
        print("id", client.next())
    print("pause", flush=True)
    sys.stdin.readline()
    for _ in range(int(os.environ.get("COSID_THEN", "0"))):
        print("id", client.next())
    print("done", flush=True)
except CosIdError as e:
    print("error", e, flush=True)
    sys.exit(1)
finally:
    client.close()
