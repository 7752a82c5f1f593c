//! The bundled demos: snapshots the CLI built from open documents at build time (`scripts/build_demos.sh`),
//! ready without embedding anything, and questions to try on each.

use super::browser;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Demo {
    /// Six hand-written notes on the Moon landing and the planets, in every format Quire reads.
    Planets,
    /// 400 interlinked encyclopedia paragraphs from HotpotQA (CC BY-SA 4.0) and multi-hop questions.
    MultiHop,
}

impl Demo {
    pub const ALL: [Demo; 2] = [Demo::Planets, Demo::MultiHop];

    pub fn key(self) -> &'static str {
        match self {
            Demo::Planets => "planets",
            Demo::MultiHop => "multihop",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Demo::Planets => "Planets and the Moon landing (6 files)",
            Demo::MultiHop => "Multi-hop encyclopedia (400 HotpotQA paragraphs)",
        }
    }

    /// Where the demo's snapshot is served; also the name its errors give.
    pub fn snapshot_url(self) -> String {
        format!("snapshots/{}.quire", self.key())
    }

    fn questions_url(self) -> String {
        format!("snapshots/{}-questions.json", self.key())
    }

    /// The demo's snapshot and its sample questions.
    pub async fn fetch(self) -> Result<(Vec<u8>, Vec<SampleQuestion>), String> {
        let snapshot = browser::fetch_bytes(&self.snapshot_url()).await?;
        let url = self.questions_url();
        let questions = browser::fetch_bytes(&url).await?;
        let questions = serde_json::from_slice(&questions).map_err(|e| format!("{url}: {e}"))?;
        Ok((snapshot, questions))
    }
}

/// A question to try on a demo, with what a good answer draws on.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct SampleQuestion {
    pub text: String,
    #[serde(default)]
    pub note: String,
}
