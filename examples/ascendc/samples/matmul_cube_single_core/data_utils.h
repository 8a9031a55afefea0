// Reading and writing the sample's raw tensor files (input/*.bin, output/*.bin).
#ifndef MATMUL_CUBE_DATA_UTILS_H
#define MATMUL_CUBE_DATA_UTILS_H
#include <cstdio>
#include <string>

inline bool ReadFile(const std::string& path, size_t bytes, void* buffer) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    return false;
  }
  const size_t got = std::fread(buffer, 1, bytes, f);
  std::fclose(f);
  return got == bytes;
}

inline bool WriteFile(const std::string& path, const void* buffer, size_t bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const size_t put = std::fwrite(buffer, 1, bytes, f);
  std::fclose(f);
  return put == bytes;
}
#endif  // MATMUL_CUBE_DATA_UTILS_H
