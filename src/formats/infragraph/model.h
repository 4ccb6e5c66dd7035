// The InfraGraph infrastructure model (Keysight infragraph schema 2.4.x) as
// plain data: what a document says, before expansion into a graph. Field
// names follow the schema; `line` is the 1-based source line of the object
// (0 when unknown, e.g. for objects built in code).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snr::infragraph {

enum class ComponentChoice { kCustom, kDevice, kCpu, kXpu, kNic, kMemory, kPort, kSwitch };

struct Component {
  std::string name;
  std::string description;
  int64_t count = 0;
  ComponentChoice choice = ComponentChoice::kCpu;
  std::string custom_type;  // custom.type; only for kCustom
  int line = 0;
  bool operator==(const Component& o) const {
    return name == o.name && description == o.description && count == o.count && choice == o.choice &&
           custom_type == o.custom_type;
  }
};

enum class BandwidthUnit { kGigabitsPerSecond, kGigabytesPerSecond, kGigatransfersPerSecond };
enum class LatencyUnit { kMs, kUs, kNs };

struct Bandwidth {
  BandwidthUnit unit = BandwidthUnit::kGigabitsPerSecond;
  double value = 0;
  bool operator==(const Bandwidth&) const = default;
};

struct Latency {
  LatencyUnit unit = LatencyUnit::kNs;
  double value = 0;
  bool operator==(const Latency&) const = default;
};

struct Link {
  std::string name;
  std::string description;
  std::optional<Bandwidth> bandwidth;  // physical.bandwidth
  std::optional<Latency> latency;      // physical.latency
  int line = 0;
  bool operator==(const Link& o) const {
    return name == o.name && description == o.description && bandwidth == o.bandwidth && latency == o.latency;
  }
};

enum class Scheme { kOne2One, kMany2Many, kRing };

// Device.Endpoint: an optional composed-device path and a component path,
// both in slice notation (`cx5_100gbe[0:8]`, `pcie_endpoint[0]`).
struct DeviceEndpoint {
  std::string device;
  std::string component;
  bool operator==(const DeviceEndpoint&) const = default;
};

struct DeviceEdge {
  DeviceEndpoint ep1, ep2;
  Scheme scheme = Scheme::kOne2One;
  std::string link;
  int line = 0;
  bool operator==(const DeviceEdge& o) const {
    return ep1 == o.ep1 && ep2 == o.ep2 && scheme == o.scheme && link == o.link;
  }
};

struct Device {
  std::string name;
  std::string description;
  std::vector<Component> components;
  std::vector<Link> links;
  std::vector<DeviceEdge> edges;
  int line = 0;
  bool operator==(const Device& o) const {
    return name == o.name && description == o.description && components == o.components && links == o.links &&
           edges == o.edges;
  }
  [[nodiscard]] const Component* find_component(std::string_view component_name) const;
  [[nodiscard]] const Link* find_link(std::string_view link_name) const;
};

struct Instance {
  std::string name;
  std::string description;
  std::string device;
  int64_t count = 0;
  int line = 0;
  bool operator==(const Instance& o) const {
    return name == o.name && description == o.description && device == o.device && count == o.count;
  }
};

// Infrastructure.Endpoint: `instance` in slice notation (`host[0:2]`) and a
// component path (`nic[0]`, `cx5_100gbe[0].port[0]`).
struct InfrastructureEndpoint {
  std::string instance;
  std::string component;
  bool operator==(const InfrastructureEndpoint&) const = default;
};

struct InfrastructureEdge {
  InfrastructureEndpoint ep1, ep2;
  Scheme scheme = Scheme::kOne2One;
  std::string link;
  int line = 0;
  bool operator==(const InfrastructureEdge& o) const {
    return ep1 == o.ep1 && ep2 == o.ep2 && scheme == o.scheme && link == o.link;
  }
};

struct Infrastructure {
  std::string name;
  std::string description;
  std::vector<Device> devices;
  std::vector<Link> links;
  std::vector<Instance> instances;
  std::vector<InfrastructureEdge> edges;
  // The file the document came from, for error messages ("" when built in code).
  std::string source;
  // True when the document was a bare Device (no infrastructure around it):
  // it is written back the same way and expands as one instance of it.
  bool bare_device = false;

  bool operator==(const Infrastructure& o) const {
    return name == o.name && description == o.description && devices == o.devices && links == o.links &&
           instances == o.instances && edges == o.edges && bare_device == o.bare_device;
  }
  [[nodiscard]] const Device* find_device(std::string_view device_name) const;
  [[nodiscard]] const Instance* find_instance(std::string_view instance_name) const;
  [[nodiscard]] const Link* find_link(std::string_view link_name) const;
};

std::string_view choice_name(ComponentChoice choice);
std::string_view scheme_name(Scheme scheme);
std::string_view bandwidth_unit_name(BandwidthUnit unit);
std::string_view latency_unit_name(LatencyUnit unit);

// Bandwidth in bits per second. One transfer carries one bit per lane, so
// 1 GT/s counts as 1 Gb/s (the schema gives no lane width or encoding).
double bandwidth_bits_per_s(const Bandwidth& bandwidth);
double latency_ns(const Latency& latency);

// One segment of a slice path: `name`, `name[i]`, `name[a:b]`, `name[a:b:s]`
// (Python slice semantics without negative values). `has_slice` false means
// "all of them".
struct SliceSegment {
  std::string name;
  bool has_slice = false;
  std::optional<int64_t> start, stop;
  int64_t step = 1;
  bool single = false;  // `name[i]`

  // The indices selected out of `count`; throws snr::Error when the slice
  // reaches past `count` (strict: Python would silently clamp).
  [[nodiscard]] std::vector<int64_t> indices(int64_t count, std::string_view what) const;
};

// Splits `a[0:2].b[1]` into segments; throws snr::Error on malformed text.
std::vector<SliceSegment> parse_slice_path(std::string_view text);
std::string to_string(const SliceSegment& segment);

}  // namespace snr::infragraph
