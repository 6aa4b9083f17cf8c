import flashcore.profile.resources as R
from flashcore.kernels.triton_fwd import Config
src = open(R.__file__).read()
for store in (False, True):
    exec(compile(src.replace("STORE_LSE=True,", f"STORE_LSE={store},"), R.__file__, "exec"), R.__dict__)
    for arch, d, cfg in [(90, 96, Config(64, 64, 8, 3)), (90, 128, Config(64, 64, 8, 3)), (89, 96, Config(64, 32, 8, 3)),
                         (89, 128, Config(64, 64, 8, 3)), (80, 96, Config(64, 32, 8, 3)), (90, 96, Config(64, 64, 4, 2)), (89, 96, Config(64, 32, 4, 2))]:
        for causal in (False, True):
            res = []
            for launch in (None, R.STANDARD_LAUNCH):
                rep = R.compile_triton_fwd(arch, d, "bf16", causal, cfg, launch)
                res.append((rep.registers, rep.spill_bytes, rep.shared_bytes, (rep.error or "")[:40]))
            print(store, arch, d, causal, cfg.block_n, cfg.num_warps, cfg.num_stages, res, flush=True)
