"""The methods section's wording in Simplified Chinese, with the terms of docs/glossary.md
(题目, 条目, 评分标准, 评分细则, 专家标注轮次, 评审模型, 门槛, 平票, 符合/不符合). The fields
are the English phrasebook's."""

PHRASES = {
    "title": "方法",
    "references": "参考文献",
    "undefined": "无法计算",
    "no_interval": "无区间",
    "and": " 和 ",
    "list_sep": "、",
    # Raters
    "h_raters": "评分者。",
    "raters_one": "一名专家对专家标注轮次 {round} 中抽取的回答进行了评分，每个条目由 {per_item} "
    "名专家评分。",
    "raters": "{count} 名专家对专家标注轮次 {round} 中抽取的回答进行了评分，每个条目由其中 "
    "{per_item} 名专家各自独立评分。",
    "specialities": "专家档案中记录的专长：{list}。",
    "specialities_none_for": "其中 {k} 名专家未记录专长。",
    "no_specialities": "专家档案中未记录专长。",
    "speciality_count": "{name}（{k} 名）",
    "calibrated": "{n} 名专家中有 {k} 名通过了 Concord 的校准。",
    "pay": "评分者按件计酬，每评完一个条目 {rate}",
    "pay_own": "（其中 {k} 名按本人的费率计酬）",
    "pay_end": "。",
    "pay_none": "本轮未设定计件费率，Concord 中没有评分者报酬方式的记录。",
    "pay_own_only": "本轮未设定计件费率；其中 {k} 名评分者设有本人的每条目费率。",
    # Blinding
    "h_blinding": "盲法。",
    "blinding": "专家评分时看不到回答出自哪个系统，也看不到其他专家的评分或评审模型的判定。"
    "条目按本轮随机种子打乱后的顺序分发，专家不会连续看到同一系统的回答",
    "difficulty_hidden": "；题目难度也不向专家显示。",
    "difficulty_shown": "；题目难度向专家显示。",
    "verdict_readers": "但本轮至少有一名评分者有权在 Concord 的其他页面查看评审模型的判定。",
    "blinding_imported": "本轮评分是在 Concord 之外收集的，Concord 中没有评分者盲法的记录。",
    # Sample
    "h_sample": "样本。",
    "sample": "本轮从 {systems} 的回答中抽取了 {fraction}（生成失败的回答和尚无评分细则的题目"
    "不参与抽样），按题目难度、主要场景和系统分层：各层按相同比例抽取，剩余名额分给余数最大的"
    "层，层内以随机种子 {seed} 对回答随机排列后选取。",
    "extended": "本轮开放时的抽样比例为 {first}，之后扩展至 {fraction}；扩展新增的回答按同一"
    "规则从尚未抽中的回答中抽取，随机种子为 {seed1}。",
    "sample_imported": "本轮的评分从文件导入：其中 {items} 个回答（占 {systems} 回答的 "
    "{fraction}）是在 Concord 之外选取的，Concord 中没有抽样方式的记录。",
    "sample_size": "样本共含 {items} 个回答。",
    "calibration": "本轮为校准轮次。",
    # Units
    "h_units": "分析单元。",
    "units": "分析单元为“回答 × 评分标准”：一个回答与本轮开放时冻结的评分细则版本中的一条"
    "评分标准。{items} 个回答共构成 {total} 个单元。专家对条目的每条评分标准判断“符合”或"
    "“不符合”。",
    "coverage": "评审模型的判定覆盖了 {items} 个回答中的 {judged} 个，其中 {frozen} 个基于本轮"
    "冻结的评分细则版本。",
    # Majority
    "h_majority": "参照标准。",
    "majority": "每个单元的参照标签为专家当前评分的多数意见（{per_item} 名评分者时需 {need} 票"
    "一致）。票数相等即为平票，平票不作猜测性裁定。",
    "excluded": "计算评审模型一致性时排除了：{list}；余下 {n} 个单元。",
    "excluded_none": "计算评审模型一致性时没有排除任何单元，共 {n} 个单元。",
    "excl_ties": "{k} 个平票单元",
    "excl_none": "{k} 个无人评分的单元",
    "excl_failed": "{k} 个评审模型调用失败的单元",
    "excl_missing": "{k} 个评审模型未评的单元",
    "excl_other": "{k} 个基于其他评分细则版本评判的单元",
    "excl_short": "{k} 个评分专家少于 {min} 名的单元",
    # Reliability
    "h_reliability": "评分者间信度。",
    "reliability": "专家之间的 Fleiss κ 为 {fleiss}（基于评分数为常见人数的 {fleiss_units} "
    "个单元），Krippendorff α 为 {alpha}，Gwet AC1 为 {ac1}（基于有评分的 {units} 个单元）；"
    "评同一单元的专家两两之间，平均 {pairwise} 的配对意见一致。",
    "reliability_none": "没有记录到专家评分，评分者间信度无法计算。",
    # Agreement
    "h_agreement": "评审模型与专家多数意见的一致性。",
    "agreement": "在 {n} 个单元中，评审模型与专家多数意见一致的比例为 {pa}（Wilson 95% "
    "置信区间 {wilson}；按对话整体重抽样的聚类 bootstrap 95% 置信区间 {boot}，重抽样 "
    "{resamples} 次，随机种子 {bseed}）。评审模型与多数意见之间的 Cohen κ 为 {kappa}。",
    # Gate
    "h_gate": "门槛。",
    "rule_point": "评测集的门槛规则：评审模型版本与专家多数意见的一致性（点估计）不低于 {t} "
    "即为通过。",
    "rule_lower_bound": "评测集的门槛规则：评审模型版本与专家多数意见一致性的 95% 区间下限"
    "不低于 {t} 即为通过。",
    "rule_sequential": "评测集的门槛规则：随时有效的序贯检验（下注 e 过程，α = {alpha}）判定"
    "评审模型版本与专家多数意见的一致性不低于 {t} 即为通过。",
    "history": "该评审模型版本评过的每个专家标注轮次都保留在证据中：{rounds}。",
    "pooled": "合并完整轮次（{names}）后，{units} 个单元（来自 {clusters} 个回答）的一致性为 "
    "{point}；考虑到同一回答内各评分标准相关（设计效应 {deff}，有效样本量 {eff}），聚类稳健的 "
    "Wilson 区间为 {interval}，第 {looks} 次检视的单侧 α 为 {osa}（α 在各次检视间分配）。",
    "pooled_none": "该评审模型版本没有可合并的完整轮次。",
    "sequential": "序贯检验按分发顺序读取了这些轮次中 {items} 个已完成的条目，结论：{decision}"
    "（置信序列 {cs}）。",
    "decision_pass": "通过",
    "decision_fail": "不通过",
    "decision_continue": "尚未作出判定",
    "passed": "结果：通过门槛。",
    "failed": "结果：未通过门槛。",
    "refused": "结果：门槛无法判定，原因是{why}",
    "refusal_round_incomplete": "专家标注轮次 {round} 尚未完成（{items} 个条目中有 {complete} "
    "个已由全部评分者评完），而固定样本规则只在完整的轮次上判定。",
    "refusal_too_few_raters": "专家标注轮次 {round} 每个条目只有 {raters} 名评分者，少于规则"
    "要求的 {min} 名。",
    "refusal_rater_reads_verdicts": "专家标注轮次 {round} 中有评分者能看到评审模型的判定。",
    "refusal_publisher_rated": "记录此次评估的人在该轮次中参与了评分。",
    "refusal_other": "拒绝代码 {code}。",
    # Corrected scores
    "h_corrected": "校正分数。",
    "corrected": "以专家评分通过预测驱动推断校正的分数（PPI++，{profile} 计分；{sampled} 个抽样"
    "回答中有 {labelled} 个的每条评分标准都有多数意见）：{rows}。",
    "corrected_row": "{system}：评审模型 {judge}，校正后 {corrected}（{level} 置信区间 "
    "{low}–{high}）",
    "corrected_row_none": "{system}：无校正分数",
    "corrected_sep": "；",
    "bias_test": "各系统评审模型偏差相等的检验：p = {p}（自由度 {df}）。",
    # Judge
    "h_judge": "评审模型。",
    "judge": "评审模型为 {label}：模型 {model}，提示词 {prompt}，温度 {temperature}，随机种子 "
    "{seed}；这些设置的指纹（SHA-256）为 {fingerprint}。",
    "judge_imported": "其判定从文件导入，并非由 Concord 调用模型得到。",
    "no_prompt": "未记录",
    "no_seed": "无",
    "provider": "服务商指纹为 {value}。",
    "provider_none": "未记录服务商指纹。",
    # Software and bundle
    "h_software": "软件。",
    "software": "统计量由 Concord {version} 计算。",
    "bundle": "已发布的排行榜 #{id} 以证据包存档，其 SHA-256 为 {hash}。",
    "bundle_none": "该排行榜尚未发布。",
}
