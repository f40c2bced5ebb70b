#include <cstdio>
#include <vector>
#include "fuzzy_connectedness.h"
#include "fuzzy_cuda.h"
using namespace lsm;
int main(){
  std::vector<float> v{100,100,60,100,500,100,100,100,100};
  auto a = affinity_parameters({100,10,5}, Adjacency::Face);
  std::vector<float> s(9);
  for (auto dims : {std::vector<long long>{3,3,1}, std::vector<long long>{3,1,3}, std::vector<long long>{9,1,1}, std::vector<long long>{1,9,1}}) {
    VolumeView vol{v.data(), dims[0], dims[1], dims[2]};
    fuzzy_connectedness_reference(vol, a, {{0,0,0}}, s.data());
    for(float x: s) printf("%g ", x); printf(" ref %lldx%lldx%lld\n", dims[0],dims[1],dims[2]);
    auto e = make_cuda_fuzzy_engine(0, 0); e->run(vol, a, {{0,0,0}}, s.data());
    for(float x: s) printf("%g ", x); printf(" cuda rounds %lld\n", (long long)e->rounds());
  }
}
