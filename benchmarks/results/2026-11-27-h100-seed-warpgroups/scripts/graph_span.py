"""H100: how much of the bench's seed numbers is the CUDA graph's own start-up. The bench sizes
a graph replay to ~200 us from its eager estimate (host-bound, 14-25 us a call at the seed), so
each replay holds only its rotation sets' 25-50 calls; paired rounds with ~6000-call graphs read
B=2 causal 0.15-0.2 us a call below the bench (5.02-5.06 against 5.21). Runs the seed preset in
graph mode, every peer, twice in one process: the bench's span (GRAPH_REPLAY_US 200) and a 20x
longer one (4000 us, up to 1024 calls a replay), then the 200 us span again. Results under
$OUT/span-<us>-<pass>/."""
import os
import sys

from flashcore import cli
from flashcore.bench import timing

OUT = os.environ.get("OUT", ".")
for n, span in enumerate((200.0, 4000.0, 200.0)):
    timing.GRAPH_REPLAY_US, timing.MAX_GRAPH_CALLS = span, 1024
    print(f"span {span:.0f} us", flush=True)
    rc = cli.main(["bench", "--preset", "seed", "--providers", "flashcore,sdpa-cudnn,fa4", "--mode", "graph",
                   "--no-plots", "--out", os.path.join(OUT, f"span-{span:.0f}-{n}")])
    print(f"rc {rc}", flush=True)
sys.exit(0)
