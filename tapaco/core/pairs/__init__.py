"""Training rows for sentence-embedding models (`anchor`, `positive`, `negative...`), shared by
`tapaco pairs` and `opusparcus pairs`: the words of each sentence (:mod:`.words`), positive
pairs drawn from groups of paraphrases (:mod:`.positives`), hard negatives found by their
shared words and kept only where the caller's relation says the two sentences are unrelated
(:mod:`.negatives`), the lexical overlap of the rows (:mod:`.overlap`) and the output folder
with its dataset card (:mod:`.output`)."""
