# Independent exact-rational reference for the table in test/unit/statisticsCases.ts.
from fractions import Fraction as F
from math import comb
def hyper(n1,n2,m):
    lo,hi=max(0,m-n2),min(n1,m)
    return lo,[F(comb(n1,x)*comb(n2,m-x),comb(n1+n2,m)) for x in range(lo,hi+1)]
def conv(strata):
    dist=[F(1)]; s=0
    for (xa,na,xb,nb) in strata:
        m=xa+xb
        if na==0 or nb==0 or m==0 or m==na+nb: continue
        lo,d=hyper(na,nb,m); s+=xa-lo
        nd=[F(0)]*(len(dist)+len(d)-1)
        for i,a in enumerate(dist):
            for j,b in enumerate(d): nd[i+j]+=a*b
        dist=nd
    obs=dist[s]
    return sum(v for v in dist if v<=obs*F(10**7+1,10**7))
rabbits=[(0,6,0,5),(3,6,0,6),(6,6,2,6),(5,6,6,6),(2,2,5,5)]
p=conv(rabbits); print('rabbits',p, float(p))
print('fisher 3/3 vs 0/3', conv([(3,3,0,3)]))
# mcnemar exact: discordant 10 vs 2 => binom.test(2,12)
def binom2(k,n):
    d=[F(comb(n,x),2**n) for x in range(n+1)]
    return min(F(1),sum(v for v in d if v<=d[k]*F(10**7+1,10**7)))
print('binom 2/12', binom2(2,12), float(binom2(2,12)))
print('binom 0/5', binom2(0,5), float(binom2(0,5)))
print('binom 1/6', binom2(1,6), float(binom2(1,6)))
# mcnemar via strata: 10 seeds A-only inbox, 2 seeds B-only, 5 concordant in
st=[(1,1,0,1)]*10+[(0,1,1,1)]*2+[(1,1,1,1)]*5+[(0,1,0,1)]*3
print('mcnemar strata', conv(st))
# pooled vs stratified issue example
print('pooled', float(conv([(32,40,2,10)])), 'strat', conv([(2,10,2,10),(30,30,0,0)]))
# stratified series by seed: seed1 A 3/3 B 0/3, seed2 A 2/3 B 1/3, seed3 A 3/3 B 1/3
print('by seed', conv([(3,3,0,3),(2,3,1,3),(3,3,1,3)]), float(conv([(3,3,0,3),(2,3,1,3),(3,3,1,3)])))

# The power figure: Fisher's two-sided test at 5 %, n a side, 0.9 against 0.7 (floats; rejection where p < 0.05).
def power(n, p0, p1, alpha=0.05):
    pw = 0.0
    b0 = [comb(n, x) * p0**x * (1 - p0) ** (n - x) for x in range(n + 1)]
    b1 = [comb(n, x) * p1**x * (1 - p1) ** (n - x) for x in range(n + 1)]
    for t in range(2 * n + 1):
        lo, hi = max(0, t - n), min(n, t)
        d = {x: comb(n, x) * comb(n, t - x) for x in range(lo, hi + 1)}
        tot = sum(d.values())
        for x in range(lo, hi + 1):
            if sum(v for v in d.values() if v <= d[x] * (1 + 1e-7)) / tot < alpha:
                pw += b0[x] * b1[t - x]
    return pw
print('power 68', round(power(68, 0.9, 0.7), 4), 'power 69', round(power(69, 0.9, 0.7), 4))
