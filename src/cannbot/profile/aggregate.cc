// Aggregator, Skips and small helpers shared by the importers (importers.h).
#include <cmath>

#include "cannbot/profile/importers.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile::internal {

void Skips::Add(const std::string& reason, int64_t line, const std::string& detail) {
  ++total_;
  for (Entry& e : entries_) {
    if (e.reason == reason) {
      ++e.count;
      return;
    }
  }
  entries_.push_back({reason, 1, line, detail});
}

std::string Skips::First() const {
  if (entries_.empty()) return "";
  const Entry* first = &entries_[0];
  for (const Entry& e : entries_) {
    if (e.first_line < first->first_line) first = &e;
  }
  return "line " + std::to_string(first->first_line) + ": " + first->reason + " (" +
         first->first_detail + ")";
}

void Skips::AppendNotes(std::vector<std::string>* notes) const {
  for (const Entry& e : entries_) {
    notes->push_back("skipped " + std::to_string(e.count) + (e.count == 1 ? " row" : " rows") +
                     ": " + e.reason + " (first at line " + std::to_string(e.first_line) +
                     ": " + e.first_detail + ")");
  }
}

int Aggregator::Slot(const std::string& metric, const std::string& unit) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].first == metric) return static_cast<int>(i);
  }
  slots_.emplace_back(metric, unit);
  return static_cast<int>(slots_.size() - 1);
}

Aggregator::Entry* Aggregator::Get(std::string_view name) {
  auto it = index_.find(name);
  if (it != index_.end()) return &entries_[it->second];
  if (entries_.size() >= max_kernels_) {
    ++dropped_kernels_;
    return nullptr;
  }
  Entry& entry = entries_.emplace_back();
  if (text::IsCleanUtf8(name)) {
    entry.kernel.name = std::string(name);
  } else {
    entry.kernel.name = text::RepairUtf8(name);
    ++repaired_names_;
  }
  index_.emplace(std::string(name), entries_.size() - 1);
  return &entry;
}

void Aggregator::AddLaunches(Entry* entry, int64_t launches, double total_us) {
  entry->kernel.launches += launches;
  entry->kernel.duration_us += total_us;
}

void Aggregator::Add(Entry* entry, int slot, double value) {
  const size_t s = static_cast<size_t>(slot);
  if (entry->sum.size() <= s) {
    entry->sum.resize(slots_.size(), 0.0);
    entry->count.resize(slots_.size(), 0);
  }
  entry->sum[s] += value;
  entry->count[s] += 1;
}

void Aggregator::SetBlockDim(Entry* entry, int64_t block_dim) {
  if (!entry->kernel.block_dim) {
    entry->kernel.block_dim = block_dim;
  } else if (*entry->kernel.block_dim != block_dim) {
    // Launches with different geometry: keep the largest, say so once.
    entry->block_dim_varies = true;
    if (block_dim > *entry->kernel.block_dim) entry->kernel.block_dim = block_dim;
  }
}

std::vector<KernelProfile> Aggregator::Finish(std::vector<std::string>* notes) {
  std::vector<KernelProfile> kernels;
  kernels.reserve(entries_.size());
  std::vector<std::string> varying;
  for (Entry& entry : entries_) {
    for (size_t s = 0; s < entry.sum.size(); ++s) {
      if (entry.count[s] == 0) continue;
      const double mean = entry.sum[s] / static_cast<double>(entry.count[s]);
      if (!std::isfinite(mean)) continue;
      entry.kernel.metrics[slots_[s].first] = Metric{mean, slots_[s].second};
    }
    if (entry.block_dim_varies) varying.push_back(entry.kernel.name);
    kernels.push_back(std::move(entry.kernel));
  }
  if (!varying.empty()) {
    notes->push_back("block dim differs between launches of " + std::to_string(varying.size()) +
                     " kernel(s) (e.g. '" + varying[0] + "'); the largest is kept");
  }
  if (repaired_names_ > 0) {
    notes->push_back(std::to_string(repaired_names_) +
                     " kernel name(s) were not valid UTF-8; the bad bytes are shown as U+FFFD");
  }
  if (dropped_kernels_ > 0) {
    notes->push_back("more than " + std::to_string(max_kernels_) + " distinct kernels: " +
                     std::to_string(dropped_kernels_) + " rows of further kernels were skipped");
  }
  return kernels;
}

Status BadInput(const std::string& name, int64_t line, const std::string& problem) {
  if (line <= 0) return Status::InvalidArgument(name + ": " + problem);
  return Status::InvalidArgument(name + ":" + std::to_string(line) + ": " + problem);
}

bool IsBannerLine(std::string_view line) {
  line = text::Trim(line);
  return line.empty() || line.substr(0, 2) == "==" || line.front() == '#';
}

}  // namespace cannbot::profile::internal
