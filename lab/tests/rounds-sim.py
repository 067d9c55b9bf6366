#!/usr/bin/env python3
"""The contention model's rounds with Linux's queued spinlock, simulated (not a test: it prints
what it finds).  Written to explain why the projection's first check against the contention
model failed (configs/seeds/README.md, "The projection against the contention model"): there
the lock's section (61 instructions) was a sixteenth of a quantum, and a contended hand-off
costs the rounds anything from nothing to a round, depending on where the round's order cuts
the waiters' queue.

The model: n tasks on vCPUs 0..n-1 of V; each does M times: Z instructions outside the lock,
the lock, S inside, the unlock.  A round runs every vCPU once for up to Q instructions,
starting one vCPU further on each round (images/qemu/0002-icount-round-quantum.patch); a spin
check that fails executes PAUSE, which ends the vCPU's turn.  The lock is qspinlock's: a fast
path when the word is 0, the pending bit for the first waiter, an MCS queue for the others
whose head takes the lock when neither locked nor pending is set, then hands the head on.
--jitter J adds a uniform 0..J instructions to each Z (the real fault path is not one length).
Prints the speed-up X(n)/X(1), the guest time being rounds x Q.

Usage: lab/tests/rounds-sim.py S Z [--q 1000] [--v 64] [--m 32] [--jitter 0] [--tasks 1,2,4]"""
import argparse
import random


def sim(n, s, z, q=1000, v=64, m=32, jitter=0, seed=1):
    """Rounds until the last of n tasks has done its m acquisitions."""
    rnd = random.Random(seed)
    locked = pending = None
    queue, go = [], set()  # MCS queue (queue[0] the head), nodes handed the head
    st = ["work"] * n
    left = [z + (rnd.randint(0, jitter) if jitter else 0) for _ in range(n)]
    done, finish = [0] * n, [None] * n
    r = 0
    while any(f is None for f in finish):
        for k in range(v):
            c = (r + k) % v
            if c >= n or finish[c] is not None:
                continue
            b = q
            while b > 0:
                if st[c] in ("work", "cs"):
                    use = min(b, left[c])
                    b -= use
                    left[c] -= use
                    if left[c]:
                        continue
                    if st[c] == "work":
                        st[c] = "try"
                        continue
                    locked = None
                    done[c] += 1
                    if done[c] == m:
                        finish[c] = r
                        break
                    st[c], left[c] = "work", z + (rnd.randint(0, jitter) if jitter else 0)
                elif st[c] == "try":
                    if locked is None and pending is None and not queue:
                        locked, st[c], left[c] = c, "cs", s
                    elif pending is None and not queue:
                        pending, st[c] = c, "pend"
                    else:
                        queue.append(c)
                        st[c] = "mcs"
                        if len(queue) == 1:
                            go.add(c)
                elif st[c] == "pend":
                    if locked is not None:
                        break  # PAUSE: the turn ends
                    pending, locked, st[c], left[c] = None, c, "cs", s
                elif st[c] == "mcs":
                    if c not in go:
                        break
                    st[c] = "head"
                else:  # head
                    if locked is not None or pending is not None:
                        break
                    locked = c
                    queue.pop(0)
                    go.discard(c)
                    if queue:
                        go.add(queue[0])
                    st[c], left[c] = "cs", s
        r += 1
    return max(finish) + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("s", type=float)
    ap.add_argument("z", type=float)
    ap.add_argument("--q", type=int, default=1000)
    ap.add_argument("--v", type=int, default=64)
    ap.add_argument("--m", type=int, default=32)
    ap.add_argument("--jitter", type=int, default=0)
    ap.add_argument("--tasks", default="1,2,4,8,16,32,64")
    a = ap.parse_args()
    s, z = int(round(a.s)), int(round(a.z))
    t1 = sim(1, s, z, a.q, a.v, a.m, a.jitter)
    print(f"S {s}, Z {z}, Q {a.q}, {a.v} vCPUs, {a.m} acquisitions a task, jitter {a.jitter}; "
          f"MVA plateau (Z+S)/S {(z + s) / s:.2f}")
    for n in (int(x) for x in a.tasks.split(",")):
        print(f"{n:4d} {t1 / sim(n, s, z, a.q, a.v, a.m, a.jitter) * n:7.2f}")


if __name__ == "__main__":
    main()
