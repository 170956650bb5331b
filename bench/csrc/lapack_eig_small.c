/* lapack_eig_small.c: where LAPACK's symmetric eigensolver spends its time at
 * small n, without cgo in the way (the HINV estimator's 50x50 eigensolve).
 *
 *   gcc -O2 bench/csrc/lapack_eig_small.c -o /tmp/eig -llapacke -lopenblas
 *   OPENBLAS_CORETYPE=SkylakeX /tmp/eig 50
 *
 * prints microseconds per call (2000 calls, one OpenBLAS thread) of dsyevd
 * with and without vectors, dsyev, dsytrd, dsytrd+dorgtr, and the
 * tridiagonal solvers dstedc and dsteqr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
extern void openblas_set_num_threads(int);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  int n=argc>1?atoi(argv[1]):50; int reps=2000;
  openblas_set_num_threads(1);
  double *a=malloc(n*n*8),*b=malloc(n*n*8),*w=malloc(n*8),*tau=malloc(n*8),*d=malloc(n*8),*e=malloc(n*8);
  srand(1); for(int i=0;i<n;i++)for(int j=0;j<=i;j++){double v=rand()/(double)RAND_MAX-0.5; a[i*n+j]=a[j*n+i]=v;} for(int i=0;i<n;i++)a[i*n+i]+=n;
  int lwork=1+6*n+2*n*n+64*n; double*work=malloc(lwork*8); int liwork=3+5*n; int*iwork=malloc(liwork*4);
  double t;
#define BENCH(name, stmt) t=now(); for(int r=0;r<reps;r++){memcpy(b,a,n*n*8); stmt;} printf("%-10s %8.1f us\n",name,(now()-t)/reps*1e6);
  BENCH("copy", (void)0);
  BENCH("syevd-V", LAPACKE_dsyevd_work(LAPACK_COL_MAJOR,'V','L',n,b,n,w,work,lwork,iwork,liwork));
  BENCH("syevd-VU", LAPACKE_dsyevd_work(LAPACK_COL_MAJOR,'V','U',n,b,n,w,work,lwork,iwork,liwork));
  BENCH("syevd-N", LAPACKE_dsyevd_work(LAPACK_COL_MAJOR,'N','L',n,b,n,w,work,lwork,iwork,liwork));
  BENCH("syev-V", LAPACKE_dsyev_work(LAPACK_COL_MAJOR,'V','L',n,b,n,w,work,lwork));
  BENCH("sytrd", LAPACKE_dsytrd_work(LAPACK_COL_MAJOR,'L',n,b,n,d,e,tau,work,lwork));
  BENCH("sytrd+orgtr", LAPACKE_dsytrd_work(LAPACK_COL_MAJOR,'L',n,b,n,d,e,tau,work,lwork);LAPACKE_dorgtr_work(LAPACK_COL_MAJOR,'L',n,b,n,tau,work,lwork));
  LAPACKE_dsytrd_work(LAPACK_COL_MAJOR,'L',n,b,n,d,e,tau,work,lwork);
  double *d0=malloc(n*8),*e0=malloc(n*8); memcpy(d0,d,n*8); memcpy(e0,e,n*8);
  double *z=malloc(n*n*8);
  BENCH("stedc-I", memcpy(d,d0,n*8);memcpy(e,e0,n*8);LAPACKE_dstedc_work(LAPACK_COL_MAJOR,'I',n,d,e,z,n,work,lwork,iwork,liwork));
  BENCH("steqr-I", memcpy(d,d0,n*8);memcpy(e,e0,n*8);LAPACKE_dsteqr_work(LAPACK_COL_MAJOR,'I',n,d,e,z,n,work));
  return 0;}
