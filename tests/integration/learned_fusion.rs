//! Training learned fusion: it converges on a separable toy set, is reproducible from its seed, finds the
//! column that matters, and round-trips through its file bit for bit.

use std::collections::BTreeMap;

use quire::retrieve::fusion::permutation_importance;
use quire::retrieve::fusion::training::{LabelledCandidates, TrainingSettings, train};
use quire::retrieve::{FusionModel, Retriever};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Questions whose candidates are relevant exactly when the first column (a "dense" score) is high; the
/// second column is noise.
fn separable_questions(count: usize, seed: u64) -> Vec<LabelledCandidates> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut question = LabelledCandidates::default();
            // Relevant rows sit anywhere, so that a model scoring every row alike cannot rank them first by
            // the tie order.
            let relevant_rows: Vec<usize> = (0..3).map(|_| rng.gen_range(0..30)).collect();
            for candidate in 0..30 {
                let relevant = relevant_rows.contains(&candidate);
                let signal = if relevant { rng.gen_range(1.0..2.5) } else { rng.gen_range(-1.5..0.8) };
                question.features.push(vec![signal, rng.gen_range(-1.5..2.5)]);
                question.relevant.push(relevant);
            }
            question
        })
        .collect()
}

fn trained(seed: u64, active_sampling: bool) -> FusionModel {
    let settings = TrainingSettings { seed, active_sampling, max_epochs: 40, ..TrainingSettings::default() };
    let about = BTreeMap::from([("dataset".to_string(), "toy".to_string())]);
    let (model, report) =
        train(&[Retriever::Dense, Retriever::Bm25], &separable_questions(60, 1), &settings, about, &mut |_| {})
            .unwrap();
    assert_eq!(report.stages.len(), if active_sampling { 2 } else { 1 });
    assert_eq!((report.training_questions, report.validation_questions), (48, 12));
    model
}

/// Share of fresh questions whose relevant candidates are the model's first ones.
fn perfect_top_three(model: &FusionModel) -> f64 {
    let questions = separable_questions(40, 99);
    let perfect = questions
        .iter()
        .filter(|q| {
            let scores = model.score(&q.features).unwrap();
            let mut order: Vec<usize> = (0..scores.len()).collect();
            order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
            let relevant = q.relevant.iter().filter(|&&r| r).count();
            order[..relevant].iter().all(|&i| q.relevant[i])
        })
        .count();
    perfect as f64 / questions.len() as f64
}

#[test]
fn training_separates_a_separable_set() {
    for active_sampling in [false, true] {
        let model = trained(7, active_sampling);
        let share = perfect_top_three(&model);
        assert!(share >= 0.9, "active sampling {active_sampling}: {share}");
    }
}

#[test]
fn importance_goes_to_the_informative_column() {
    let model = trained(7, true);
    let importance = permutation_importance(&model, &separable_questions(30, 5), 3).unwrap().unwrap();
    assert_eq!(importance[0].0, Retriever::Dense);
    assert!(importance[0].1 > 0.8, "{importance:?}");
    assert!((importance.iter().map(|(_, share)| share).sum::<f64>() - 1.0).abs() < 1e-9);
}

#[test]
fn training_is_reproducible_from_its_seed() {
    assert_eq!(trained(11, true), trained(11, true));
    assert_ne!(trained(11, false), trained(12, false));
}

#[test]
fn the_model_round_trips_through_its_file_bit_for_bit() {
    let model = trained(3, true);
    let loaded = FusionModel::from_bytes(&model.to_bytes()).unwrap();
    assert_eq!(loaded, model);
    assert_eq!(loaded.retrievers(), model.retrievers());
    assert_eq!(loaded.about(), model.about());
    assert_eq!(loaded.about()["dataset"], "toy");
    let inputs: Vec<Vec<f32>> = separable_questions(2, 4).into_iter().flat_map(|q| q.features).collect();
    let bits = |m: &FusionModel| m.score(&inputs).unwrap().into_iter().map(f32::to_bits).collect::<Vec<_>>();
    assert_eq!(bits(&loaded), bits(&model));
}

#[test]
fn bad_settings_and_shapes_are_errors() {
    let questions = separable_questions(10, 2);
    let train_with = |settings: TrainingSettings, questions: &[LabelledCandidates]| {
        train(&[Retriever::Dense, Retriever::Bm25], questions, &settings, BTreeMap::new(), &mut |_| {})
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let err = train_with(TrainingSettings { batch_size: 1, ..TrainingSettings::default() }, &questions);
    assert!(err.contains("batches of at least 2"), "{err}");
    let err = train_with(TrainingSettings { promising: 0.0, ..TrainingSettings::default() }, &questions);
    assert!(err.contains("promising share"), "{err}");
    let mut short = questions.clone();
    short[3].relevant.pop();
    let err = train_with(TrainingSettings::default(), &short);
    assert!(err.contains("question 3: 30 candidates but 29 labels"), "{err}");
    let mut narrow = questions;
    narrow[1].features[0].pop();
    let err = train_with(TrainingSettings::default(), &narrow);
    assert!(err.contains("question 1: 1 features for 2 retrievers"), "{err}");
}

#[test]
fn nothing_to_learn_is_an_error() {
    let mut questions = separable_questions(10, 2);
    for question in &mut questions {
        question.relevant.iter_mut().for_each(|r| *r = false);
    }
    let err = train(
        &[Retriever::Dense, Retriever::Bm25],
        &questions,
        &TrainingSettings::default(),
        BTreeMap::new(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("no relevant candidate"), "{err}");
}
