#include "dsim/network/ns3/ns3_scheduler.h"

#include <ns3/map-scheduler.h>
#include <ns3/object-factory.h>
#include <ns3/simulator.h>

#include <cmath>

#include "common/error.h"

namespace snr::dsim::ns3_backend {
namespace {

class PeekableScheduler final : public ns3::MapScheduler {
 public:
  static ns3::TypeId GetTypeId() {
    static const ns3::TypeId id = ns3::TypeId("snr::PeekableScheduler")
                                      .SetParent<ns3::MapScheduler>()
                                      .SetGroupName("snr")
                                      .AddConstructor<PeekableScheduler>();
    return id;
  }
  // The simulator creates it through its TypeId and owns it; the one in use
  // is the last one created (ns-3 has one simulator per process).
  PeekableScheduler() { current = this; }
  ~PeekableScheduler() override {
    if (current == this) current = nullptr;
  }
  static inline PeekableScheduler* current = nullptr;
};

}  // namespace

void prepare_simulator() {
  if (ns3::Time::GetResolution() != ns3::Time::PS) ns3::Time::SetResolution(ns3::Time::PS);
  ns3::ObjectFactory factory;
  factory.SetTypeId(PeekableScheduler::GetTypeId());
  ns3::Simulator::SetScheduler(factory);
  if (PeekableScheduler::current == nullptr) throw Error("ns-3 backend: the simulator did not take the scheduler");
}

std::optional<TimeNs> next_event_ns() {
  const PeekableScheduler* scheduler = PeekableScheduler::current;
  if (scheduler == nullptr || scheduler->IsEmpty()) return std::nullopt;
  const ns3::Time at = ns3::TimeStep(scheduler->PeekNext().key.m_ts);
  return ceil_ns(at);
}

TimeNs ceil_ns(const ns3::Time& time) {
  const int64_t ps = time.GetPicoSeconds();
  return static_cast<TimeNs>((ps + 999) / 1000);
}

}  // namespace snr::dsim::ns3_backend
