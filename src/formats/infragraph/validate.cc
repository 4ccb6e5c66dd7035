// Cross-reference checks that need the whole document: unique names, and
// every name an edge or instance mentions resolves. Slice ranges are checked
// where edges are expanded (src/infra), which knows the counts per level.
#include <fmt/format.h>

#include <set>

#include "common/error.h"
#include "formats/infragraph/infragraph.h"

namespace snr::infragraph {
namespace {

std::string where(const Infrastructure& infra, int line) {
  if (infra.source.empty()) return "";
  return line > 0 ? fmt::format("{}:{}: ", infra.source, line) : infra.source + ": ";
}

template <typename T>
void check_unique(const Infrastructure& infra, const std::vector<T>& items, const std::string& path) {
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!seen.insert(items[i].name).second) {
      throw Error(fmt::format("{}{}[{}].name: duplicate name '{}'", where(infra, items[i].line), path, i, items[i].name));
    }
  }
}

// The first segment of a component path names a component of `device`; a
// leading segment equal to the device's own name is a qualifier
// (`dgx.cx5[0]`). Composed components continue into their device.
void check_component_path(const Infrastructure& infra, const Device* device, const std::string& text,
                          const std::string& path, int line) {
  std::vector<SliceSegment> segs;
  try {
    segs = parse_slice_path(text);
  } catch (const Error& e) {
    throw Error(fmt::format("{}{}: {}", where(infra, line), path, e.what()));
  }
  for (size_t i = 0; i < segs.size(); ++i) {
    if (i == 0 && segs.size() > 1 && segs[0].name == device->name && !segs[0].has_slice &&
        device->find_component(segs[0].name) == nullptr) {
      continue;
    }
    const Component* c = device->find_component(segs[i].name);
    if (c == nullptr) {
      throw Error(fmt::format("{}{}: '{}' is not a component of device '{}'", where(infra, line), path, segs[i].name,
                              device->name));
    }
    const bool last = i + 1 == segs.size();
    if (c->choice == ComponentChoice::kDevice) {
      if (last) {
        throw Error(fmt::format("{}{}: '{}' is a composed device; name one of its components ('{}.<component>')",
                                where(infra, line), path, segs[i].name, to_string(segs[i])));
      }
      device = infra.find_device(c->name);
    } else if (!last) {
      throw Error(fmt::format("{}{}: '{}' is a {} component, not a composed device; it has no '{}'", where(infra, line),
                              path, segs[i].name, choice_name(c->choice), segs[i + 1].name));
    }
  }
}

void check_composition(const Infrastructure& infra, const Device& device, std::vector<const Device*>& stack) {
  for (const auto* d : stack) {
    if (d == &device) {
      std::string chain;
      for (const auto* s : stack) chain += s->name + " -> ";
      throw Error(fmt::format("{}device '{}' contains itself through composition ({}{})", where(infra, device.line),
                              device.name, chain, device.name));
    }
  }
  stack.push_back(&device);
  for (const auto& c : device.components) {
    if (c.choice != ComponentChoice::kDevice) continue;
    check_composition(infra, *infra.find_device(c.name), stack);
  }
  stack.pop_back();
}

}  // namespace

void validate_references(const Infrastructure& infra) {
  check_unique(infra, infra.devices, "devices");
  check_unique(infra, infra.links, "links");
  check_unique(infra, infra.instances, "instances");
  for (size_t di = 0; di < infra.devices.size(); ++di) {
    const Device& d = infra.devices[di];
    const std::string dpath = fmt::format("devices[{}]({})", di, d.name);
    check_unique(infra, d.components, dpath + ".components");
    check_unique(infra, d.links, dpath + ".links");
    for (size_t ci = 0; ci < d.components.size(); ++ci) {
      const Component& c = d.components[ci];
      if (c.choice == ComponentChoice::kDevice && infra.find_device(c.name) == nullptr) {
        throw Error(fmt::format("{}{}.components[{}]({}).name: choice 'device' needs a device named '{}' in devices",
                                where(infra, c.line), dpath, ci, c.name, c.name));
      }
    }
  }
  for (const auto& d : infra.devices) {
    std::vector<const Device*> stack;
    check_composition(infra, d, stack);
  }
  for (size_t di = 0; di < infra.devices.size(); ++di) {
    const Device& d = infra.devices[di];
    const std::string dpath = fmt::format("devices[{}]({})", di, d.name);
    for (size_t ei = 0; ei < d.edges.size(); ++ei) {
      const DeviceEdge& e = d.edges[ei];
      const std::string epath = fmt::format("{}.edges[{}]", dpath, ei);
      if (d.find_link(e.link) == nullptr) {
        throw Error(fmt::format("{}{}.link: '{}' is not in the links of device '{}'", where(infra, e.line), epath, e.link,
                                d.name));
      }
      for (auto [key, ep] : {std::pair{"ep1", &e.ep1}, std::pair{"ep2", &e.ep2}}) {
        const std::string text = ep->device.empty() ? ep->component : ep->device + "." + ep->component;
        check_component_path(infra, &d, text, epath + "." + key + (ep->device.empty() ? ".component" : ".device"),
                             e.line);
      }
    }
  }
  for (size_t ii = 0; ii < infra.instances.size(); ++ii) {
    const Instance& i = infra.instances[ii];
    if (infra.find_device(i.device) == nullptr) {
      throw Error(fmt::format("{}instances[{}]({}).device: '{}' is not in devices", where(infra, i.line), ii, i.name,
                              i.device));
    }
  }
  for (size_t ei = 0; ei < infra.edges.size(); ++ei) {
    const InfrastructureEdge& e = infra.edges[ei];
    const std::string epath = fmt::format("edges[{}]", ei);
    if (infra.find_link(e.link) == nullptr) {
      throw Error(fmt::format("{}{}.link: '{}' is not in the infrastructure links", where(infra, e.line), epath, e.link));
    }
    for (auto [key, ep] : {std::pair{"ep1", &e.ep1}, std::pair{"ep2", &e.ep2}}) {
      std::vector<SliceSegment> segs;
      try {
        segs = parse_slice_path(ep->instance);
      } catch (const Error& err) {
        throw Error(fmt::format("{}{}.{}.instance: {}", where(infra, e.line), epath, key, err.what()));
      }
      if (segs.size() != 1) {
        throw Error(fmt::format("{}{}.{}.instance: '{}' must be one instance name with an optional slice",
                                where(infra, e.line), epath, key, ep->instance));
      }
      const Instance* inst = infra.find_instance(segs[0].name);
      if (inst == nullptr) {
        throw Error(fmt::format("{}{}.{}.instance: '{}' is not in instances", where(infra, e.line), epath, key,
                                segs[0].name));
      }
      check_component_path(infra, infra.find_device(inst->device), ep->component,
                           epath + "." + key + ".component", e.line);
    }
  }
}

}  // namespace snr::infragraph
