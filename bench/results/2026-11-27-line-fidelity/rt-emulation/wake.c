#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sched.h>
#include <sys/prctl.h>
#include <poll.h>
static unsigned long long ns(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000ull+t.tv_nsec;}
static int cmp(const void*a,const void*b){unsigned long long x=*(unsigned long long*)a,y=*(unsigned long long*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){int fifo=atoi(argv[1]);int n=atoi(argv[2]);int mode=argc>3?atoi(argv[3]):0;
 prctl(PR_SET_TIMERSLACK,1UL,0,0,0);
 if(fifo){struct sched_param sp={.sched_priority=fifo};if(sched_setscheduler(0,SCHED_FIFO,&sp))perror("fifo");}
 unsigned long long *l=malloc(n*8);
 for(int i=0;i<n;i++){unsigned long long t=ns()+1000000;
  if(mode==0){struct timespec ts={t/1000000000ull,t%1000000000ull};clock_nanosleep(CLOCK_MONOTONIC,TIMER_ABSTIME,&ts,0);}
  else {unsigned long long d=t-ns();struct timespec ts={0,d};ppoll(0,0,&ts,0);}
  l[i]=ns()-t;}
 qsort(l,n,8,cmp);
 printf("fifo=%d mode=%d p50=%llu p90=%llu p99=%llu p999=%llu max=%llu us\n",fifo,mode,l[n/2]/1000,l[n*9/10]/1000,l[n*99/100]/1000,l[n*999/1000]/1000,l[n-1]/1000);}
