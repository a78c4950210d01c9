montecarlo_LIBS := -lcurand
