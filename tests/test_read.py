import gzip
import re

import numpy as np
from independent import read_links

from tapaco.core.errors import BadInputLog
from tapaco.core.progress import Progress
from tapaco.read import INTER, read_corpus


def test_rf_release_counts_match_a_plain_scan(shared_data):
    corpus = read_corpus(shared_data / "opus-rf", BadInputLog(), Progress(enabled=False))
    targets = [t for path in sorted((shared_data / "opus-rf/xml").glob("*-*.xml.gz"))
               for t in re.findall(r'xtargets="([^"]*)"', gzip.decompress(path.read_bytes())
                                   .decode())]
    sides = [t.split(";") for t in targets]
    empty = sum(1 for a, b in sides if not a.strip() or not b.strip())
    assert corpus.counts.links == len(targets)
    assert corpus.counts.links_with_empty_side == empty
    assert len(corpus.edges) == len(targets) - empty
    assert (corpus.edge_kind == INTER).all()
    links = read_links(shared_data / "opus-rf")
    assert corpus.counts.multi_id_sides == len({s for link in links for s in link if " " in s[2]})
    multi = [i for i, side in enumerate(corpus.sides) if " " in side]
    assert multi and all(" " in corpus.texts[i] for i in multi)
    assert sorted(corpus.languages) == ["de", "en", "es", "fr", "sv"]
    assert np.array_equal(corpus.vertex_lang, corpus.document_lang[corpus.vertex_doc])
