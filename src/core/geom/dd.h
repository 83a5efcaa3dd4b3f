/*
 * dd.h: double-double arithmetic (a value as an unevaluated sum hi + lo,
 * |lo| <= ulp(hi) / 2, about 106 bits), built on the error-free
 * transformations TwoSum and TwoProd (fma).  Used by the general engine's
 * fallback for ill-conditioned pairs (area_exact.c).
 *
 * The algorithms are those of Hida, Li and Bailey's QD library ("accurate"
 * addition).  fma() is called explicitly, so the results do not depend on
 * whether the compiler contracts a * b + c.
 */
#ifndef PB_GEOM_DD_H
#define PB_GEOM_DD_H

#include <math.h>

/* A double-double: the value hi + lo. */
typedef struct PbDD
{
	double		hi,
				lo;
} PbDD;

/* The double-double holding x exactly. */
static inline PbDD
PbDDFrom(double x)
{
	PbDD		r = {x, 0.0};

	return r;
}

/* a + b as hi + lo exactly, given |a| >= |b| (or a == 0). */
static inline PbDD
PbDDFastTwoSum(double a, double b)
{
	PbDD		r;

	r.hi = a + b;
	r.lo = b - (r.hi - a);
	return r;
}

/* a + b as hi + lo exactly (Knuth's TwoSum). */
static inline PbDD
PbDDTwoSum(double a, double b)
{
	PbDD		r;
	double		bb;

	r.hi = a + b;
	bb = r.hi - a;
	r.lo = (a - (r.hi - bb)) + (b - bb);
	return r;
}

/* a * b as hi + lo exactly (barring underflow). */
static inline PbDD
PbDDTwoProd(double a, double b)
{
	PbDD		r;

	r.hi = a * b;
	r.lo = fma(a, b, -r.hi);
	return r;
}

/* a + b. */
static inline PbDD
PbDDAdd(PbDD a, PbDD b)
{
	PbDD		s = PbDDTwoSum(a.hi, b.hi),
				t = PbDDTwoSum(a.lo, b.lo);

	s.lo += t.hi;
	s = PbDDFastTwoSum(s.hi, s.lo);
	s.lo += t.lo;
	return PbDDFastTwoSum(s.hi, s.lo);
}

/* -a. */
static inline PbDD
PbDDNeg(PbDD a)
{
	PbDD		r = {-a.hi, -a.lo};

	return r;
}

/* a - b. */
static inline PbDD
PbDDSub(PbDD a, PbDD b)
{
	return PbDDAdd(a, PbDDNeg(b));
}

/* a * b. */
static inline PbDD
PbDDMul(PbDD a, PbDD b)
{
	PbDD		p = PbDDTwoProd(a.hi, b.hi);

	p.lo += a.hi * b.lo + a.lo * b.hi;
	return PbDDFastTwoSum(p.hi, p.lo);
}

/* a * d for a double d. */
static inline PbDD
PbDDMulD(PbDD a, double d)
{
	PbDD		p = PbDDTwoProd(a.hi, d);

	p.lo += a.lo * d;
	return PbDDFastTwoSum(p.hi, p.lo);
}

/* a / b (b != 0): three quotient digits, each corrected by the remainder. */
static inline PbDD
PbDDDiv(PbDD a, PbDD b)
{
	double		q1 = a.hi / b.hi,
				q2,
				q3;
	PbDD		r = PbDDSub(a, PbDDMulD(b, q1)),
				q;

	q2 = r.hi / b.hi;
	r = PbDDSub(r, PbDDMulD(b, q2));
	q3 = r.hi / b.hi;
	q = PbDDFastTwoSum(q1, q2);
	return PbDDAdd(q, PbDDFrom(q3));
}

/* Sign of a: -1, 0 or 1 (hi carries it for a normalized value). */
static inline int
PbDDSign(PbDD a)
{
	return (a.hi > 0.0) - (a.hi < 0.0);
}

/* Whether a < b (both normalized). */
static inline int
PbDDLess(PbDD a, PbDD b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/* The nearest double to a. */
static inline double
PbDDValue(PbDD a)
{
	return a.hi + a.lo;
}

#endif							/* PB_GEOM_DD_H */
