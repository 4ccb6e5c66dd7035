// `snr sweep report`: a self-contained HTML page (inline SVG, no scripts)
// of a results database — the objective against each numeric parameter
// (one line per value of a categorical parameter), the best value per
// value of each categorical parameter, time by cause for kinds that have
// causes, the best points and the failed ones. Each figure is also
// written as an .svg file beside index.html.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sweep/store.h"

namespace snr::sweep {

struct ReportFigure {
  std::string id;     // file name without .svg
  std::string title;
  std::string svg;    // inline form
  std::string note;   // shown under the figure, when not empty
};

struct SweepReport {
  std::string html;
  std::vector<ReportFigure> figures;
};

SweepReport build_report(const ResultTable& table);
// Writes index.html and <figure id>.svg into `dir`, all or nothing.
void write_report(const SweepReport& report, const std::filesystem::path& dir);

}  // namespace snr::sweep
