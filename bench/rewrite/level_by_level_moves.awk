# Reads an `snr disasm -s <op>.all_gather.setup` listing (9 DMA issue groups
# and 9 waits in chained order) and prints the moves that issue the three
# chains level by level (the moves file of `snr rewrite --moves`).
function quote(list,   n, parts, i, out) {
  n = split(list, parts, " ")
  for (i = 1; i <= n; i++) out = out (i > 1 ? ", " : "") "\"" parts[i] "\""
  return out
}
/^ *[0-9a-f]+:/ {
  addr = "0x" substr($1, 1, length($1) - 1)
  if ($3 == "sem.wait") { wait[++waits] = addr; group = ""; next }
  group = group (group == "" ? "" : " ") addr
  if ($3 == "dma.issue") { issue[++issues] = group; group = "" }
}
END {
  if (issues != 9 || waits != 9) { print "expected 9 issues and 9 waits, found " issues " and " waits > "/dev/stderr"; exit 1 }
  printf "{\"moves\": ["
  for (g = 1; g < 3; g++) printf "%s{\"pcs\": [%s], \"before_pc\": \"%s\"}", (n++ ? ", " : ""), quote(issue[g * 3 + 1]), wait[1]
  for (l = 2; l <= 3; l++) for (g = 1; g < 3; g++)
    printf ", {\"pcs\": [%s], \"before_pc\": \"%s\"}", quote(wait[g * 3 + l - 1] " " issue[g * 3 + l]), wait[l]
  print "]}"
}
