#!/usr/bin/env python3
"""Start-up of an engine's ranks: PROCS processes (default 8) loading one model's kernels
(paged decode, its merge, the cache write and merge_attn_states for two head configs), by route:

  cold_no_daemon    each process compiles in-process into its own empty cache
  cold_daemon       a fresh tilejitd, the processes ask it with the runtime-only client
                    (tilejit-client: no compiler linked): one compile per key
  cold_daemon_jit   the same through the JIT (TILEJIT_COMPILE_SERVICE=required), own caches
  warm_disk         in-process JIT, every kernel in the (shared) local disk cache
  warm_daemon       the runtime-only client against the warm daemon
  warm_redis        in-process JIT, empty local disks, every kernel in Redis (skipped without
                    redis-server)
  round_trip        one client asking the warm daemon for one kernel REQUESTS times (p50/p99)
  clients64         CLIENTS (64) client processes at once, each asking for the whole list
                    REQUESTS/8 times (per-request p50/p99)

Every process prints its per-kernel times (bench/startup_loader.cpp, service/client_main.cpp);
this program adds the wall time from the first start to the last exit. The GPU machine is used
when present (target sm_90), else the CPU (host); CPU=1 forces the CPU.
Env: BIN (build/bin), PROCS (8), CLIENTS (64), REQUESTS (400), ROUNDS (3), OUT (dir for
startup.jsonl), SCENARIOS (comma list; default all).
Usage: python3 bench/bench_startup.py
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(os.environ.get("BIN", "build/bin"))
PROCS = int(os.environ.get("PROCS", "8"))
CLIENTS = int(os.environ.get("CLIENTS", "64"))
REQUESTS = int(os.environ.get("REQUESTS", "400"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
CPU = os.environ.get("CPU", "") == "1"
OUT = os.environ.get("OUT", "")

# Two head configs: Llama-3-8B (32 q / 8 kv heads, head 128) and TinyLlama-1.1B (32 / 4, 64).
KERNELS = """\
paged_decode head_size=128 gqa_ratio=4
paged_decode_reduce head_size=128
reshape_and_cache head_size=128
merge_attn_states head_size=128
paged_decode head_size=64 gqa_ratio=8
paged_decode_reduce head_size=64
reshape_and_cache head_size=64
merge_attn_states head_size=64
"""
KERNEL_COUNT = len(KERNELS.splitlines())


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_group(commands):
    """Starts every (argv, env) at once; returns the wall seconds and each one's JSON."""
    start = time.perf_counter()
    running = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for argv, env in commands]
    outputs = [process.communicate() for process in running]
    wall = time.perf_counter() - start
    results = []
    for process, (out, err) in zip(running, outputs):
        if process.returncode != 0:
            raise RuntimeError(f"{process.args[0]} exited {process.returncode}: {err.strip()}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return wall, results


class Daemon:
    def __init__(self, scratch, env, jobs):
        self.socket = os.path.join(scratch, "tilejitd.sock")
        self.cache = os.path.join(scratch, "daemon-cache")
        self.log = open(os.path.join(scratch, "tilejitd.log"), "w")
        self.env = env
        self.process = subprocess.Popen(
            [f"{BIN}/tilejitd", "--socket", self.socket, "--cache-dir", self.cache, "--jobs",
             str(jobs)], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(500):
            if self.ask("--health") is not None:
                return
            time.sleep(0.02)
        raise RuntimeError("tilejitd did not start")

    def ask(self, flag):
        done = subprocess.run([f"{BIN}/tilejitd", flag, "--socket", self.socket], env=self.env,
                              capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else None

    def metric(self, series):
        for line in (self.ask("--metrics") or "").splitlines():
            if line.startswith(series + " "):
                return float(line.split()[-1])
        return None

    def stop(self):
        self.process.terminate()
        self.process.wait()
        self.log.close()


class Bench:
    def __init__(self, scratch):
        self.scratch = scratch
        self.kernels = os.path.join(scratch, "kernels.txt")
        with open(self.kernels, "w") as out:
            out.write(KERNELS)
        self.env = dict(os.environ)
        for name in ("TILEJIT_COMPILE_SERVICE", "TILEJIT_SERVICE_SOCKET", "TILEJIT_REDIS_URL"):
            self.env.pop(name, None)
        self.env["CUDA_CACHE_DISABLE"] = "1"  # the driver's own cache would hide the cold cost
        self.device_flag = ["--cpu"] if CPU else []
        self.records = []

    def fresh(self, name):
        return tempfile.mkdtemp(prefix=name + "-", dir=self.scratch)

    def jit(self, env):
        return ([f"{BIN}/tilejit_bench_startup_loader", self.kernels] + self.device_flag, env)

    def client(self, daemon, *flags):
        return ([f"{BIN}/tilejit-client", "--socket", daemon.socket, "--json"] + self.device_flag
                + list(flags) + ["load", self.kernels], self.env)

    def record(self, scenario, wall, results, **extra):
        per_process = [r["total_ms"] for r in results]
        per_kernel = [k["ms"] for r in results for k in r["kernels"]]
        sources = {}
        for r in results:
            for k in r["kernels"]:
                source = k.get("source", k.get("tier"))
                sources[source] = sources.get(source, 0) + 1
        row = {"scenario": scenario, "device": results[0]["device"], "processes": len(results),
               "kernels": KERNEL_COUNT, "wall_s": round(wall, 4),
               "process_ms_median": round(statistics.median(per_process), 3),
               "process_ms_max": round(max(per_process), 3),
               "kernel_ms_median": round(statistics.median(per_kernel), 4),
               "kernel_ms_p99": round(percentile(per_kernel, 0.99), 4),
               "kernel_ms_max": round(max(per_kernel), 4), "sources": sources}
        row.update(extra)
        self.records.append(row)
        print(json.dumps(row), flush=True)

    def cold_no_daemon(self):
        commands = [self.jit(dict(self.env, TILEJIT_CACHE_DIR=self.fresh("own")))
                    for _ in range(PROCS)]
        wall, results = run_group(commands)
        self.record("cold_no_daemon", wall, results)

    def cold_daemon(self, through_jit=False):
        daemon = Daemon(self.fresh("daemon"), self.env, jobs=os.cpu_count())
        try:
            if through_jit:
                env = dict(self.env, TILEJIT_COMPILE_SERVICE="required",
                           TILEJIT_SERVICE_SOCKET=daemon.socket)
                commands = [self.jit(dict(env, TILEJIT_CACHE_DIR=self.fresh("own")))
                            for _ in range(PROCS)]
            else:
                commands = [self.client(daemon) for _ in range(PROCS)]
            wall, results = run_group(commands)
            self.record("cold_daemon_jit" if through_jit else "cold_daemon", wall, results,
                        daemon_compiles=daemon.metric("tilejitd_compiles_total"))
            if not through_jit:
                wall, results = run_group([self.client(daemon) for _ in range(PROCS)])
                self.record("warm_daemon", wall, results,
                            daemon_compiles=daemon.metric("tilejitd_compiles_total"))
        finally:
            daemon.stop()

    def warm_disk(self):
        shared = self.fresh("shared")
        run_group([self.jit(dict(self.env, TILEJIT_CACHE_DIR=shared))])  # fills it
        wall, results = run_group([self.jit(dict(self.env, TILEJIT_CACHE_DIR=shared))
                                   for _ in range(PROCS)])
        self.record("warm_disk", wall, results)

    def warm_redis(self):
        server = shutil.which("redis-server") or (
            "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None)
        if not server:
            print(json.dumps({"scenario": "warm_redis", "skipped": "redis-server not installed"}))
            return
        scratch = self.fresh("redis")
        port = free_port()
        redis = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                  "--appendonly", "no", "--dir", scratch],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            key_file = os.path.join(scratch, "fleet.key")
            with open(key_file, "wb") as out:
                out.write(os.urandom(32))
            os.chmod(key_file, 0o600)
            env = dict(self.env, TILEJIT_REDIS_URL=f"redis://127.0.0.1:{port}/0",
                       TILEJIT_REDIS_KEY_FILE=key_file)
            for _ in range(250):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.02)
            run_group([self.jit(dict(env, TILEJIT_CACHE_DIR=self.fresh("publisher")))])
            wall, results = run_group([self.jit(dict(env, TILEJIT_CACHE_DIR=self.fresh("empty")))
                                       for _ in range(PROCS)])
            self.record("warm_redis", wall, results)
        finally:
            redis.kill()
            redis.wait()

    def latencies(self):
        daemon = Daemon(self.fresh("daemon"), self.env, jobs=os.cpu_count())
        try:
            run_group([self.client(daemon)])  # compiles the list
            one = ([f"{BIN}/tilejit-client", "--socket", daemon.socket, "--json", "--no-load",
                    "--repeat", str(REQUESTS)] + self.device_flag +
                   ["load", "-k", "merge_attn_states head_size=128"], self.env)
            wall, results = run_group([one])
            self.record("round_trip", wall, results)
            repeat = max(1, REQUESTS // KERNEL_COUNT)
            wall, results = run_group([self.client(daemon, "--no-load", "--repeat", str(repeat))
                                       for _ in range(CLIENTS)])
            requests = CLIENTS * repeat * KERNEL_COUNT
            self.record(f"clients{CLIENTS}", wall, results, requests=requests,
                        requests_per_s=round(requests / wall, 1))
        finally:
            daemon.stop()


def main():
    for binary in ("tilejitd", "tilejit-client", "tilejit_bench_startup_loader"):
        if not os.path.exists(f"{BIN}/{binary}"):
            sys.exit(f"bench_startup: {BIN}/{binary} is missing (build it, or set BIN)")
    wanted = os.environ.get("SCENARIOS", "")
    scratch = tempfile.mkdtemp(prefix="tj-startup-")
    try:
        bench = Bench(scratch)
        steps = [("cold_no_daemon", bench.cold_no_daemon), ("cold_daemon", bench.cold_daemon),
                 ("cold_daemon_jit", lambda: bench.cold_daemon(through_jit=True)),
                 ("warm_disk", bench.warm_disk), ("warm_redis", bench.warm_redis),
                 ("latencies", bench.latencies)]
        for _ in range(ROUNDS):
            for name, step in steps:
                if not wanted or name in wanted.split(","):
                    step()
        if OUT:
            os.makedirs(OUT, exist_ok=True)
            with open(os.path.join(OUT, "startup.jsonl"), "w") as out:
                for row in bench.records:
                    out.write(json.dumps(row) + "\n")
        summarize(bench.records)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def summarize(records):
    """Medians over rounds, one line per scenario."""
    by_scenario = {}
    for row in records:
        by_scenario.setdefault(row["scenario"], []).append(row)
    print(f"\n{'scenario':16} {'device':7} {'wall s':>8} {'proc ms':>9} {'kernel ms p50':>13} "
          f"{'p99':>9}  sources / notes  (medians of {ROUNDS} rounds)")
    for scenario, rows in by_scenario.items():
        med = lambda field: statistics.median(r[field] for r in rows)
        notes = json.dumps(rows[0]["sources"])
        if "daemon_compiles" in rows[0]:
            notes += f" daemon compiles {rows[0]['daemon_compiles']:.0f}"
        if "requests_per_s" in rows[0]:
            notes += f" {med('requests_per_s'):.0f} requests/s"
        print(f"{scenario:16} {rows[0]['device']:7} {med('wall_s'):8.3f} {med('process_ms_median'):9.2f} "
              f"{med('kernel_ms_median'):13.4f} {med('kernel_ms_p99'):9.4f}  {notes}")


if __name__ == "__main__":
    main()
