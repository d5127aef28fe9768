#!/usr/bin/env bash
# Load test of cosid serve with wrk (Debian's wrk), beside a bare net/http server
# that answers a constant, in the same run on the same machine.
#
#   bench/serve.sh                 # memory store, 10s per case
#   DURATION=30s bench/serve.sh
#   DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' bench/serve.sh
#   ROUNDS=5 bench/serve.sh        # 5 alternating rounds of bare and count=1
#
# Prints, per case: requests/s, ids/s, and the p50 and p99 latency that wrk measured,
# at full load (CONNS connections) and at light load (LIGHT connections); then the
# latency of single ids at a fixed rate (RATE requests/s, an open loop: bench/rateload,
# corrected for coordinated omission), ROUNDS times beside the bare server. Then ROUNDS
# rounds that alternate the bare server and single ids at full load, each with its
# ratio, so that a machine whose load changes shows it rather than skews one figure.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
CONNS=${CONNS:-64}
LIGHT=${LIGHT:-4}
RATE=${RATE:-25000}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1}
ENGINE=${ENGINE:-conns} # rateload's: conns, or vegeta (which cannot send 25k req/s on 2 cores)
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/cosid" ./cmd/cosid
go build -o "$work/constserver" ./bench/constserver
go build -o "$work/rateload" ./bench/rateload

if [ -n "${DSN:-}" ]; then
	store="{ type: sql, driver: pgx, dsn: \"$DSN\", timeout: 2s, options: { initSchema: true } }"
else
	store="{ type: memory }"
fi
cat >"$work/cosid.yaml" <<YAML
cosid:
  namespace: bench-$RANDOM$RANDOM
  stores:
    db: $store
  generators:
    order: { strategy: segment, store: db, step: 1000 }
YAML

(cd "$work" && exec ./cosid serve --addr 127.0.0.1:18686 2>"$work/serve.log") &
pids+=($!)
"$work/constserver" 127.0.0.1:18687 &
pids+=($!)
for _ in $(seq 100); do
	curl -fs localhost:18686/healthz >/dev/null 2>&1 && curl -fs localhost:18687/ >/dev/null 2>&1 && break
	sleep 0.1
done
# Warm up: the first requests size the generator's ranges by the measured rate.
wrk -t1 -c"$CONNS" -d2s "http://127.0.0.1:18686/v1/generators/order/next?count=1000" >/dev/null

# run NAME URL IDS_PER_REQUEST CONNECTIONS
run() {
	local out rps p50 p99
	out=$(wrk -t"$THREADS" -c"$4" -d"$DURATION" --latency "$2")
	rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
	p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
	p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
	printf '%-22s %5s conns %12.0f req/s %14.0f ids/s   p50 %8s   p99 %8s\n' "$1" "$4" "$rps" "$(awk "BEGIN {print $rps * $3}")" "$p50" "$p99"
	last_rps=$rps
}

echo "cosid serve vs bare net/http on $(nproc) cores, wrk -t$THREADS, $DURATION each ($(go version | cut -d' ' -f3))"
for conns in "$CONNS" "$LIGHT"; do
	run "bare net/http constant" "http://127.0.0.1:18687/" 0 "$conns"
	run "next count=1" "http://127.0.0.1:18686/v1/generators/order/next" 1 "$conns"
	run "next count=100" "http://127.0.0.1:18686/v1/generators/order/next?count=100" 100 "$conns"
	run "next count=1000" "http://127.0.0.1:18686/v1/generators/order/next?count=1000" 1000 "$conns"
done
echo "single ids at a fixed rate of $RATE req/s (rateload -engine $ENGINE), $ROUNDS alternating rounds:"
for round in $(seq "$ROUNDS"); do
	printf '%-22s ' "bare net/http constant"
	"$work/rateload" -engine "$ENGINE" -url "http://127.0.0.1:18687/" -rate "$RATE" -duration "$DURATION"
	printf '%-22s ' "next count=1"
	"$work/rateload" -engine "$ENGINE" -url "http://127.0.0.1:18686/v1/generators/order/next" -rate "$RATE" -duration "$DURATION"
done
echo "single ids beside the bare server, $ROUNDS alternating rounds at $CONNS connections:"
for round in $(seq "$ROUNDS"); do
	run "bare net/http constant" "http://127.0.0.1:18687/" 0 "$CONNS"
	bare=$last_rps
	run "next count=1" "http://127.0.0.1:18686/v1/generators/order/next" 1 "$CONNS"
	printf 'round %d: next count=1 at %.1f%% of the bare server\n' "$round" "$(awk "BEGIN {print 100 * $last_rps / $bare}")"
done
