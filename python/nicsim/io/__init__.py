"""What goes out of a run: recordings as pcap and Chrome/Perfetto files, result documents as
pandas tables, figures, and cache counts as text. May import configuration and the top's
foundations (errors, units, paths), never `api` or a benchmark."""
