/* Exact mean-value analysis of the machine-repairman model: N CPUs each run Z outside one
 * shared lock, then hold it for S (plus a constant hand-off H per acquisition: the lock's
 * cache line moving to the next holder), waiting their turn in between.  The closed queueing
 * model of issue "lock counts and a projection": with Q_0 = 0, for n = 1..N
 *     R_n = (S + H)(1 + Q_{n-1}),  X_n = n / (Z + R_n),  Q_n = X_n R_n.
 * X_n is operations per unit time, R_n the time at the lock per operation (waiting + holding).
 * Throughput is bounded by min(n / (Z + S + H), 1 / (S + H)); the knee, where the two bounds
 * meet, is at n* = (Z + S + H) / (S + H).  A projection from this model is labelled one
 * wherever it appears and never enters a verdict.  Pure. */
#pragma once
#include <stddef.h>

struct mva_point {
	unsigned n;    /* CPUs */
	double x;      /* throughput, operations per unit of Z */
	double r;      /* residence at the lock per operation: waiting and holding */
	double q;      /* mean CPUs at the lock (waiting or holding) */
	double u;      /* the lock's utilisation, X (S + H), 0..1 */
};

/* out[i] for n = 1..nmax (room for nmax points).  -EINVAL unless z >= 0, s > 0, h >= 0 (all
 * finite) and nmax >= 1. */
int mva_solve(double z, double s, double h, unsigned nmax, struct mva_point *out);
/* The same with, when ticket is set, a hand-off that grows with the waiters: a ticket lock's
 * release is read by every waiter in turn before the next holder sees it (Boyd-Wickizer et
 * al., "Non-scalable locks are dangerous", 2012), approximated here as D_n = S + H (1 +
 * Q_{n-1}) in place of S + H.  A queued (MCS) spinlock hands the lock to one waiter: ticket 0
 * is mva_solve.  u is X D_n. */
int mva_solve_lock(double z, double s, double h, int ticket, unsigned nmax,
		   struct mva_point *out);
/* The knee n* = (Z + S + H) / (S + H): below it CPUs rarely meet at the lock. */
double mva_knee(double z, double s, double h);
