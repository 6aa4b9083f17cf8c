"""Evidence for deduplicating the offline gate: (1) do split>1 variants of one config share
resources? (2) is Triton's PTX for sm_89 the sm_80 PTX with another .target line?"""
import dataclasses, json, re, sys, time, os
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
import multiprocessing as mp

def comp(args):
    arch, hd, dtype, causal, cfg, launch = args
    from flashcore.profile.resources import compile_triton_fwd
    r = compile_triton_fwd(arch, hd, dtype, causal, cfg, launch)
    return (r.registers, r.spill_bytes, r.stack_bytes, r.shared_bytes, r.error)

def ptx(args):
    arch, hd, dtype, causal, cfg = args
    import triton
    from flashcore.profile import resources
    captured = {}
    orig = resources.compile_with_ptxas_log
    def spy(src, target, options):
        c, log = orig(src, target, options); captured['ptx'] = c.asm['ptx']; return c, log
    resources.compile_with_ptxas_log = spy
    resources.compile_triton_fwd(arch, hd, dtype, causal, cfg, resources.STANDARD_LAUNCH)
    p = captured['ptx']
    return re.sub(r'\.target sm_\d+', '.target X', p)

if __name__ == '__main__':
    os.environ['TRITON_INTERPRET'] = '0'
    from flashcore.profile import offline
    from flashcore.profile.resources import STANDARD_LAUNCH
    ts = [t for t in offline.plan() if t.family == 'triton']
    groups = defaultdict(list)
    for t in ts:
        k = (t.arch,) + t.key()[1:-1] + (dataclasses.replace(t.config, split_kv=0),)
        groups[k].append(t)
    multi = [g for g in groups.values() if len({t.config.split_kv for t in g if t.config.split_kv > 1}) > 1]
    jobs = []
    for g in multi:
        for t in g:
            if t.config.split_kv > 1:
                jobs.append((t.arch, t.head_dim, t.dtype, t.causal, t.config, STANDARD_LAUNCH))
    print('split groups', len(multi), 'compiles', len(jobs), flush=True)
    ctx = mp.get_context('spawn')
    s = time.time()
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        res = list(pool.map(comp, jobs))
    by = defaultdict(set)
    for j, r in zip(jobs, res):
        k = (j[0], j[1], j[3], dataclasses.replace(j[4], split_kv=0))
        by[k].add((j[4].split_kv,) + r)
    same = 0
    for k, v in by.items():
        vals = {x[1:] for x in v}
        if len(vals) == 1: same += 1
        else: print('DIFF', k, sorted(v))
    print('split groups identical', same, 'of', len(by), round(time.time() - s), 's', flush=True)
    a80 = {t.key()[1:]: t for t in ts if t.arch == 80}
    both = [t for t in ts if t.arch == 89 and t.key()[1:] in a80]
    s = time.time()
    pj = []
    for t in both:
        pj += [(80, t.head_dim, t.dtype, t.causal, t.config), (89, t.head_dim, t.dtype, t.causal, t.config)]
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        ps = list(pool.map(ptx, pj))
    eq = sum(ps[i] == ps[i + 1] for i in range(0, len(ps), 2))
    print('ptx 80 vs 89 identical', eq, 'of', len(both), round(time.time() - s), 's', flush=True)
    for i in range(0, len(ps), 2):
        if ps[i] != ps[i+1]:
            import difflib
            print('\n'.join(list(difflib.unified_diff(ps[i].splitlines(), ps[i+1].splitlines(), lineterm=''))[:20])); break
