#!/usr/bin/env python3
"""A client of cosid serve with Python's standard library only.

It takes ids over /v1, then reserves a range through the store API and hands its ids
out locally, as a process that needs ids faster than one call per id would.

    COSID_URL=http://127.0.0.1:8686 COSID_TOKEN=... python3 client.py

Environment: COSID_URL (the server), COSID_TOKEN (the bearer token, if the server
has one), COSID_GENERATOR (default order), COSID_KEY (the store key to reserve from,
default examples/python).
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ.get("COSID_URL", "http://127.0.0.1:8686").rstrip("/")
TOKEN = os.environ.get("COSID_TOKEN", "")


def call(method, path, body=None):
    """Sends one request and returns its JSON answer; an error answer, or none, exits."""
    headers = {"Accept": "application/json"}
    if TOKEN:
        headers["Authorization"] = "Bearer " + TOKEN
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as e:
        # Every error of cosid serve is {"code": ..., "message": ...}.
        err = json.load(e)
        sys.exit(f"{method} {path}: {e.code} {err['code']}: {err['message']}")
    except (urllib.error.URLError, OSError) as e:
        # No answer at all: refused, unresolvable or timed out (URLError wraps the
        # first two; a timeout while reading is a bare OSError).
        reason = getattr(e, "reason", e)
        sys.exit(f"{method} {BASE}{path}: no answer from cosid serve: {reason} (is it running at COSID_URL={BASE}?)")


class LocalRange:
    """Hands out the ids of a reserved range [start, end) without calling the server."""

    def __init__(self, key, size):
        # Ids pass 2^53, so the API sends them as strings; Python's ints hold them.
        r = call("POST", "/v1/store/reserve", {"key": key, "size": size, "initialOffset": 1})
        self.next, self.end = int(r["start"]), int(r["end"])
        print(f"range {self.next} {self.end}")

    def take(self):
        if self.next >= self.end:
            return None
        v, self.next = self.next, self.next + 1
        return v


def main():
    name = urllib.parse.quote(os.environ.get("COSID_GENERATOR", "order"), safe="")
    for id_ in call("GET", f"/v1/generators/{name}/next?count=5")["ids"]:
        print("id", id_)
    print("id", call("GET", f"/v1/generators/{name}/next")["ids"][0])

    local = LocalRange(os.environ.get("COSID_KEY", "examples/python"), 100)
    while (v := local.take()) is not None:
        print("local", v)


if __name__ == "__main__":
    main()
