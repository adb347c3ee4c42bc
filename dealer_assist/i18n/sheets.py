# ruff: noqa: E501  (the sheets' sentences stay whole, as the operator wrote them)
"""Where a flag"s rule comes from the operator"s own rule sheets (Thai, `shared/seeds/` of the
project"s specification): the sheet"s sentence, its file and line, shown beside the rule"s
translation on the console (`flags.html`). Only flags whose rule a sheet states are here.
"""

from __future__ import annotations

from typing import NamedTuple


class SheetSentence(NamedTuple):
    file: str
    line: int
    text: str


RULE_SHEETS: dict[str, SheetSentence] = {
    "BURN_SHORT": SheetSentence(
        "001_c103d94bd0bf71cc.txt", 36,
        "ถ้าหากว่าเจ้ามือลืมเบิร์นไพ่ จะถือว่าไม่ถูกต้อง และไพ่ขอนใหม่จะถูกนำมาเปลี่ยนแทนที่ทันที"),
    "BURN_MISSING": SheetSentence(
        "001_c103d94bd0bf71cc.txt", 37,
        "ไพ่1ใบจะต้องเบิร์นหลังจากจบเกมในทุกๆเกม"),
    "UNNEEDED_DRAW": SheetSentence(
        "001_c103d94bd0bf71cc.txt", 38,
        "เมื่อเจ้ามือเรียกไพ่ออกมา ในกรณีที่ไม่จำเป็นต้องเรียก ไพ่ใบนั้นจะถูกเก็บไว้สำหรับเบิร์นในเกมถัดไป แพ้/ชนะ ในเกมปัจจุบันให้ยึดตามกฏกติกาการเล่นอย่างปกติ ผลที่ตามมาจะไม่ได้รับผลกระทบ"),
    "MULTI_PULL": SheetSentence(
        "001_c103d94bd0bf71cc.txt", 40,
        "ในกรณีหากเจ้ามือไม่ตั้งใจเรียกไพ่ออก 2 ใบติดกัน ในระหว่างเกมดำเนินอยู่นั้น หัวหน้าผู้ดูแลเกมจะพิจารณาให้ไพ่ใบบนเป็นไพ่ใบแรก ส่วนใบล่างจะได้รับการพิจารณาเป็นใบที่ 2 ผลของเกมจะไม่ได้รับผลกระทบ"),
    "MISSING_DRAW": SheetSentence(
        "001_c103d94bd0bf71cc.txt", 42,
        "ในกรณีที่เจ้ามือเรียกไพ่ผิดโดยไม่เป็นไปตามกฎกติการ หัวหน้าผู้ดูแลเกมจะทำการแก้ไขให้ถูกต้องโดยทันที และจะไม่มีผลกระทบกับผลของเกม"),
    "LAST_GAME": SheetSentence(
        "004_f99027a7261772f9.txt", 53,
        "หากว่า ไพ่สีน้ำเงิน ออกมาระหว่างที่แจกไพ่อยู่ เกมส์ที่กำลังแจกอยู่นั้นจะถือว่าเป็นเกมส์สุดท้าย"),
    "DEAL_AFTER_LAST_GAME": SheetSentence(
        "004_f99027a7261772f9.txt", 55,
        "ถ้าหากมีการแจกไพ่เพิ่มหลังจากที่เป็นเกมส์สุดท้ายแล้ว จะถูกตัดสินว่าไม่ถูกต้องและเป็นโมฆะ"),
    "EXPOSED_DURING_BETTING": SheetSentence(
        "004_f99027a7261772f9.txt", 57,
        "ไพ่ในเกมส์ทั้งหมด ที่มีการเปิดหงายไพ่ในเกมส์ ระหว่างช่วงรอการวางเดิมพันนั้น จะคิดผลเป็น โมฆะในเกมส์นั้น และ ฝ่ายบริหารจัดการ ได้รับสิทธิ์อย่างถูกต้องที่จะยกเลิกแท่นใส่ไพ่"),
    "CARD_OUT_OF_VIEW": SheetSentence(
        "004_f99027a7261772f9.txt", 65,
        "ไพ่ที่หลุดออกนอกมุมกล้อง ในระหว่างที่ลากไพ่ ก่อนจะเปิด ,ช่วงเริ่มต้น ,การทิ้งไพ่ และ มีการหยิบขึ้นมา และนำกลับมาใช้ใหม่"),
    # No sheet speaks of the system's own failures: this one leaves any game of a shoe to
    # management ("depending on the situation, management may cancel or void any game").
    "INTERRUPTED": SheetSentence(
        "004_f99027a7261772f9.txt", 50,
        "ทั้งนี้ขึ้นอย่กับสถาณการณ์,ทางฝ่ายบริการการจัดการขอสงวนสิทธิ์ในการยกเลิกหรือถือเป็นโมฆะในแต่ละเกมส์ของแต่ละสำรับ"),
}
