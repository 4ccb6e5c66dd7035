#include <fmt/format.h>

#include "device/memory_windows.h"
#include "device/npu_device.h"
#include "isa/registers.h"

namespace snr::device {

std::string npu_target_xml() {
  std::string xml =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
      "<architecture>riscv:rv64</architecture>\n<feature name=\"org.gnu.gdb.riscv.cpu\">\n";
  for (unsigned i = 0; i < 32; ++i) {
    const std::string_view name = i == 8 ? std::string_view("fp") : isa::x_register_abi_name(i);
    const char* type = (i == 1) ? "code_ptr" : (i == 2 || i == 3 || i == 4 || i == 8) ? "data_ptr" : "int";
    xml += fmt::format("  <reg name=\"{}\" bitsize=\"64\" type=\"{}\" regnum=\"{}\"/>\n", name, type, i);
  }
  xml += fmt::format("  <reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"{}\"/>\n</feature>\n", kRegPc);
  xml += "<feature name=\"org.snr.npu.csr\">\n";
  xml += fmt::format("  <reg name=\"cycle\" bitsize=\"64\" type=\"int\" regnum=\"{}\" group=\"csr\"/>\n", kRegCycle);
  xml += fmt::format("  <reg name=\"instret\" bitsize=\"64\" type=\"int\" regnum=\"{}\" group=\"csr\"/>\n", kRegInstret);
  xml += fmt::format("  <reg name=\"mhartid\" bitsize=\"64\" type=\"int\" regnum=\"{}\" group=\"csr\"/>\n", kRegMhartid);
  xml += fmt::format("  <reg name=\"nchips\" bitsize=\"64\" type=\"int\" regnum=\"{}\" group=\"csr\"/>\n", kRegNchips);
  xml += "</feature>\n<feature name=\"org.snr.npu.semaphores\">\n";
  for (unsigned i = 0; i < isa::kSemaphoreCount; ++i) {
    xml += fmt::format("  <reg name=\"sem{}\" bitsize=\"32\" type=\"uint32\" regnum=\"{}\" group=\"semaphore\"/>\n", i,
                       kRegSemaphore0 + i);
  }
  xml += "</feature>\n<feature name=\"org.snr.npu.status\">\n";
  xml += fmt::format("  <reg name=\"chip_status\" bitsize=\"32\" type=\"uint32\" regnum=\"{}\" group=\"npu\"/>\n",
                     kRegChipStatus);
  xml += fmt::format("  <reg name=\"exit_code\" bitsize=\"64\" type=\"int\" regnum=\"{}\" group=\"npu\"/>\n", kRegExitCode);
  xml += fmt::format("  <reg name=\"mxu_count\" bitsize=\"32\" type=\"uint32\" regnum=\"{}\" group=\"npu\"/>\n",
                     kRegMxuCount);
  xml += "</feature>\n</target>\n";
  return xml;
}

}  // namespace snr::device
