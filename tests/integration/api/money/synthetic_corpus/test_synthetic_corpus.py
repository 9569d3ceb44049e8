"""syntheticCorpus.*: generate a corpus for the client, list and read it back; roles and bounds."""

from __future__ import annotations


def test_synthetic_corpus_generate_list_get(make_member):
    analyst = make_member(role="analyst")
    made = analyst.rpc.mutation(
        "syntheticCorpus.generate", {"seed": 3, "claims": 40, "denialMix": {"denialRate": 0.3}}
    ).data
    assert made["status"] == "ready" and any(f["name"] == "ground_truth.json" for f in made["files"])
    got = analyst.rpc.query("syntheticCorpus.getCorpus", {"corpusId": made["id"]}).data
    assert got["groundTruthSummary"]["counts"]["claims"] == 40
    assert got["manifest"]["spec"]["denial_rate"] == 0.3
    assert [c["id"] for c in analyst.rpc.query("syntheticCorpus.listCorpora", {}).data["items"]] == [made["id"]]
    too_big = analyst.rpc.mutation("syntheticCorpus.generate", {"claims": 50_001})
    assert too_big.code == "BAD_REQUEST" and "CLI" in too_big.error["message"]
    specialist = make_member(role="specialist")
    assert specialist.rpc.mutation("syntheticCorpus.generate", {"claims": 5}).code == "FORBIDDEN"
    assert specialist.rpc.query("syntheticCorpus.getCorpus", {"corpusId": made["id"]}).code == "NOT_FOUND"
