"""The model behind v54's prediction (CPU, no GPU): a causal item of 192-row blocks on 64-key tiles
takes max(its warpgroup-tiles, c x its longest lone warpgroup's tiles) turns, plus 6 for its
prologue and epilogue; items longest first onto 132 CTAs. Prints S, c, the makespan without and
with the lead, and their ratio. Warpgroups of padding count one tile.
    python <this script>"""
import heapq, math
def cdiv(a,b): return -(-a//b)
def items(S, BH, BM, BN, lead, c):
    n_m = cdiv(S, BM); out=[]
    L = (n_m*BM - S)//64*64 if lead else 0
    for p in reversed(range(n_m)):
        m0 = p*BM - L
        owns=[]
        for w in range(BM//64):
            r0 = m0+64*w
            if r0 >= S or r0 + 64 <= 0: owns.append(1); continue
            hi = min(S, r0+64); owns.append(max(cdiv(hi, BN),1))
        t = max(sum(owns)*1.0, max(owns)*c) + 6
        out += [t]*BH
    return out
def makespan(ts, ctas=132):
    h=[0.0]*ctas
    for t in ts:
        x=heapq.heappop(h); heapq.heappush(h, x+t)
    return max(h)
for S,BH in [(2048,128),(4096,64),(8192,32),(16384,16),(3000,64)]:
    for c in (1.6,2.0,2.5):
        a=makespan(items(S,BH,192,64,False,c)); b=makespan(items(S,BH,192,64,True,c))
        print(S, c, round(a), round(b), round(a/b,3))
