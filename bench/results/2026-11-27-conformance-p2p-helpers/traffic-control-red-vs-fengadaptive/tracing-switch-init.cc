#include <cstdlib>
extern "C" char fp_conformance_no_tracing_flag;
extern "C" void fp_conformance_tracing_init()
{ fp_conformance_no_tracing_flag = std::getenv("FP_CONFORMANCE_NO_TRACING") != 0; }
