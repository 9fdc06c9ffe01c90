#!/usr/bin/env python3
"""The Python-client row of `make bench` (bench_client runs this).

Drives vLLM's own request loop -- async_request_openai_completions from
$VLLM_SRC/vllm/benchmarks/lib/endpoint_request_func.py, loaded by path from a
checkout the user names (never copied into servebench) -- with an asyncio
semaphore for concurrency, as `vllm bench serve` does, against a running
`servebench sim`. Prints one JSON object:

  cpu_us_per_event   process CPU time (user + system) / SSE data events received
  events             data events: token chunks (len(itl) + 1) + the usage chunk
  ttft_error_*_us    (start_time + ttft) - the sim's servebench_send_ns of the
                     first chunk, when the sim runs with --send-time-field

time.perf_counter() is CLOCK_MONOTONIC on Linux, the clock of servebench_send_ns.
To read the sim's send time the first chunk of each response is inspected by a
thin wrapper around aiohttp's StreamReader.iter_any (one substring search on
the first chunk only); vLLM's code itself runs unmodified.
"""
import argparse
import asyncio
import importlib.util
import json
import random
import re as _re
import resource
import sys
import types


def load_request_module(vllm_src):
    # endpoint_request_func imports `regex` and `tqdm`; stand in for them when the
    # Debian packages are absent (the request loop does not use them on this path).
    if importlib.util.find_spec("regex") is None:
        sys.modules["regex"] = _re
    if importlib.util.find_spec("tqdm") is None:
        tqdm_mod = types.ModuleType("tqdm")
        tqdm_async = types.ModuleType("tqdm.asyncio")
        tqdm_async.tqdm = object
        tqdm_mod.asyncio = tqdm_async
        sys.modules["tqdm"] = tqdm_mod
        sys.modules["tqdm.asyncio"] = tqdm_async
    path = f"{vllm_src}/vllm/benchmarks/lib/endpoint_request_func.py"
    spec = importlib.util.spec_from_file_location("vllm_endpoint_request_func", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SEND_NS = {}  # asyncio task -> sim send time (ns) of the first chunk


def install_send_time_probe(aiohttp):
    original = aiohttp.StreamReader.iter_any

    async def iter_any(self):
        first = True
        async for chunk in original(self):
            if first:
                first = False
                at = chunk.find(b'"servebench_send_ns":')
                if at >= 0:
                    # The sim pads the stamp with spaces (it is written in place
                    # as the bytes leave); -1 means the chunk was never stamped.
                    digits = _re.match(rb" *(\d+)", chunk[at + 21:])
                    if digits:
                        SEND_NS[asyncio.current_task()] = int(digits.group(1))
            yield chunk

    aiohttp.StreamReader.iter_any = iter_any


def percentile(values, p):
    if not values:
        return 0.0
    xs = sorted(values)
    h = (len(xs) - 1) * p / 100.0
    lo = int(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


async def main_async(args, rf, aiohttp):
    rng = random.Random(0)
    semaphore = asyncio.Semaphore(args.concurrency)
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, keepalive_timeout=60)
    async with aiohttp.ClientSession(connector=connector, timeout=rf.AIOHTTP_TIMEOUT) as session:

        async def one(i):
            prompt = [rng.randrange(100, 32000) for _ in range(args.input_len)]
            inp = rf.RequestFuncInput(prompt=prompt, api_url=args.base_url + "/v1/completions",
                                      prompt_len=args.input_len, output_len=args.output_len,
                                      model=args.model, ignore_eos=True)
            async with semaphore:
                out = await rf.async_request_openai_completions(inp, session)
            return out, SEND_NS.pop(asyncio.current_task(), None)

        before = resource.getrusage(resource.RUSAGE_SELF)
        results = await asyncio.gather(*(asyncio.create_task(one(i)) for i in range(args.num_prompts)))
        after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    ok = [(o, s) for o, s in results if o.success]
    events = sum(len(o.itl) + 2 for o, _ in ok)
    errors = [((o.start_time + o.ttft) * 1e9 - s) / 1e3 for o, s in ok if s is not None]
    return {
        "completed": len(ok),
        "failed": len(results) - len(ok),
        "events": events,
        "cpu_s": cpu,
        "cpu_us_per_event": cpu * 1e6 / events if events else 0.0,
        "ttft_error_samples": len(errors),
        "ttft_error_p50_us": percentile(errors, 50),
        "ttft_error_p99_us": percentile(errors, 99),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vllm-src", required=True)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--num-prompts", type=int, default=256)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--input-len", type=int, default=64)
    ap.add_argument("--output-len", type=int, default=1024)
    args = ap.parse_args()
    try:
        import aiohttp
    except ImportError:
        print("python3-aiohttp is not installed (apt-get install python3-aiohttp)", file=sys.stderr)
        return 2
    rf = load_request_module(args.vllm_src)
    install_send_time_probe(aiohttp)
    print(json.dumps(asyncio.run(main_async(args, rf, aiohttp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
